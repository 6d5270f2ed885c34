-- id: envy_without_qualifying_wager
-- title: Envy Bonus paid to a seat without a Qualifying Wager (a Fortune or Progressive wager of at least the ruleset's minimum, $5 under § 688a.1)
-- severity: high
-- rule: 58 Pa. Code § 688a.1 ("Qualifying Wager", "Envy Bonus") and § 688a.7(h)(2)(ii) (an Envy Bonus is paid to a player holding a Qualifying Wager); docs/rules.md 2.1, 2.4, 6a.11
-- next: review the video of the Envy payment and the seat's Fortune/Progressive wager; recover the payment and retrain the dealer on Envy eligibility
-- catches: envy_without_qualifying_wager
-- The least Qualifying Wager is the ruleset's own, as replay wrote it beside each Envy row
-- (envy.qualifying_minimum_cents: the casino's option qualifying_wager_cents, docs/rules.md
-- 6a.11); the check has no amount of its own, so the engine and the check judge by the same
-- ruleset. Where replay did not say it (an older replay, or a ruleset without the option), a
-- payment to a seat holding a Fortune or Progressive wager cannot be judged: it is flagged
-- "not evaluated", without amounts (never a pass, never money counted on a guess).
-- Offending rows: every recorded Envy payment (envy rows 'payment') to a seat that holds no
-- Qualifying Wager, judged round or not. replay's qualifying_wager says the seat holds a
-- Fortune or Progressive wager of any amount; a wager below the ruleset's minimum (the $5 of
-- § 688a.1 in the shipped rulesets, a casino's own where it files one) does not qualify
-- either. recorded = the payment, expected = 0, except for a payment for the seat's own hand
-- or the dealer's, whose money envy_own_or_dealer_hand already counts, and a payment whose
-- minimum replay did not say: those are flagged here without amounts, so that the money is
-- counted once, and only when known.
WITH payments AS (
    SELECT e.*,
           e.qualifying_wager IS TRUE AND e.qualifying_wager_cents IS NOT NULL
               AND e.qualifying_minimum_cents IS NULL AS minimum_unknown,
           e.for_seat IS NULL OR e.for_seat = e.seat AS own_or_dealer
    FROM envy AS e
    WHERE e."row" = 'payment'
)
SELECT
    e.casino,
    e.round_id,
    e.table_id,
    e.seat,
    CASE WHEN NOT (e.own_or_dealer OR e.minimum_unknown) THEN e.recorded_cents END
        AS recorded_cents,
    CASE WHEN NOT (e.own_or_dealer OR e.minimum_unknown) THEN 0::BIGINT END
        AS expected_cents,
    'Envy Bonus of ' || e.recorded_cents || ' cents paid to seat ' || e.seat || ' for '
        || CASE WHEN e.for_seat IS NULL THEN 'the dealer''s hand'
                WHEN e.for_seat = e.seat THEN 'its own hand'
                ELSE 'seat ' || e.for_seat || '''s hand' END
        || CASE WHEN e.minimum_unknown
                THEN ': not evaluated, replay''s outputs do not say the least Qualifying Wager '
                     || 'of the ruleset in force (the seat''s largest Fortune or Progressive '
                     || 'wager is ' || e.qualifying_wager_cents || ' cents); replay again '
                     || 'with `python -m replay`'
                WHEN e.qualifying_wager_cents IS NULL
                THEN ', but the seat holds no Fortune or Progressive wager'
                ELSE ', but the seat holds no Fortune or Progressive wager of '
                     || e.qualifying_minimum_cents
                     || ' cents or more (its largest is ' || e.qualifying_wager_cents || ')' END
        || CASE WHEN e.own_or_dealer
                THEN ' (the amount is counted by envy_own_or_dealer_hand)' ELSE '' END AS detail
FROM payments AS e
WHERE e.qualifying_wager IS NOT TRUE
   OR e.minimum_unknown
   OR e.qualifying_wager_cents < e.qualifying_minimum_cents
ORDER BY e.casino, e.table_id, e.round_id, e.seat, e.for_seat NULLS FIRST, e.recorded_cents
