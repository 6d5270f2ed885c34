-- id: envy_without_qualifying_wager
-- title: Envy Bonus paid to a seat without a Qualifying Wager (a Fortune or Progressive wager of at least $5)
-- severity: high
-- rule: 58 Pa. Code § 688a.1 ("Qualifying Wager", "Envy Bonus") and § 688a.7(h)(2)(ii) (an Envy Bonus is paid to a player holding a Qualifying Wager); docs/rules.md 2.1, 2.4, 6a.11
-- next: review the video of the Envy payment and the seat's Fortune/Progressive wager; recover the payment and retrain the dealer on Envy eligibility
-- params: qualifying_wager_cents=500
-- catches: envy_without_qualifying_wager
-- The least Qualifying Wager is the ruleset's own (envy.qualifying_minimum_cents: the casino's
-- option qualifying_wager_cents, docs/rules.md 6a.11); the parameter only where replay did
-- not say it (an older replay, or a ruleset without the option).
-- Offending rows: every recorded Envy payment (envy rows 'payment') to a seat that holds no
-- Qualifying Wager, judged round or not. replay's qualifying_wager says the seat holds a
-- Fortune or Progressive wager of any amount; a wager below $qualifying_wager_cents (the
-- $5 of § 688a.1, the option qualifying_wager_cents of the shipped rulesets) does not
-- qualify either. recorded = the payment, expected = 0, except for a payment for the seat's
-- own hand or the dealer's, whose money envy_own_or_dealer_hand already counts: it is flagged
-- here without amounts, so that the money is counted once.
SELECT
    e.casino,
    e.round_id,
    e.table_id,
    e.seat,
    CASE WHEN NOT (e.for_seat IS NULL OR e.for_seat = e.seat) THEN e.recorded_cents END
        AS recorded_cents,
    CASE WHEN NOT (e.for_seat IS NULL OR e.for_seat = e.seat) THEN 0::BIGINT END
        AS expected_cents,
    'Envy Bonus of ' || e.recorded_cents || ' cents paid to seat ' || e.seat || ' for '
        || CASE WHEN e.for_seat IS NULL THEN 'the dealer''s hand'
                WHEN e.for_seat = e.seat THEN 'its own hand'
                ELSE 'seat ' || e.for_seat || '''s hand' END
        || ', but the seat holds '
        || CASE WHEN e.qualifying_wager_cents IS NULL
                THEN 'no Fortune or Progressive wager'
                ELSE 'no Fortune or Progressive wager of '
                     || coalesce(e.qualifying_minimum_cents, $qualifying_wager_cents)
                     || ' cents or more (its largest is ' || e.qualifying_wager_cents || ')' END
        || CASE WHEN e.for_seat IS NULL OR e.for_seat = e.seat
                THEN ' (the amount is counted by envy_own_or_dealer_hand)' ELSE '' END AS detail
FROM envy AS e
WHERE e."row" = 'payment'
  AND (e.qualifying_wager IS NOT TRUE
       OR e.qualifying_wager_cents < coalesce(e.qualifying_minimum_cents, $qualifying_wager_cents))
ORDER BY e.casino, e.table_id, e.round_id, e.seat, e.for_seat NULLS FIRST, e.recorded_cents
