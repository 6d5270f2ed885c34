-- id: envy_owed_not_paid
-- title: Envy Bonus owed and not (fully) paid: a seat holding a Qualifying Wager was paid less for other players' hands than the rules require
-- severity: high
-- rule: 58 Pa. Code § 688a.7(h)(2)(ii) and § 688a.1 (Qualifying Wager, Envy Bonus Qualifying Hand: four of a kind or better); docs/rules.md 2.4, 6a.11
-- next: review the round's video for the other players' hands (four of a kind or better) and the Envy payments; pay the patron the shortfall and log it against the dealer
-- catches: envy_underpaid
-- The least Qualifying Wager is the ruleset's own, as replay wrote it beside each Envy row
-- (envy.qualifying_minimum_cents: the casino's option qualifying_wager_cents, docs/rules.md
-- 6a.11); the check has no amount of its own. Where replay did not say it (an older replay,
-- or a ruleset without the option) a payment to a seat with a Fortune or Progressive wager
-- is compared here as owable, and envy_without_qualifying_wager flags it not evaluated.
-- The payments per seat, owable and never owed, are the shared relation envy_paid
-- (checks/sql/_views/40_envy_paid.sql).
-- Offending rows: per seat of a judged round, the Envy the seat was paid for other seats'
-- hands while holding a Qualifying Wager (recorded) is less than the Envy the rules require
-- (expected, envy row 'total'). The payments that are never owed are left out, each counted
-- once by its own check: a payment for the seat's own hand or the dealer's
-- (envy_own_or_dealer_hand), a payment to a seat without a Qualifying Wager
-- (envy_without_qualifying_wager): they pay nothing that is owed. Envy overpaid is envy_mispay.
SELECT
    t.casino,
    t.round_id,
    t.table_id,
    t.seat,
    TRY_CAST(coalesce(p.owable, 0) AS BIGINT) AS recorded_cents,
    t.expected_cents,
    'Envy Bonus for other players'' hands: paid ' || coalesce(p.owable, 0) || ', the rules require '
        || t.expected_cents || ' (cents)'
        || CASE WHEN coalesce(p.never_owed, 0) <> 0
                THEN '; ' || p.never_owed || ' more paid for the seat''s own or the dealer''s hand '
                     || 'or without a Qualifying Wager, flagged apart'
                ELSE '' END AS detail
FROM envy AS t
ANTI JOIN unjudged AS u USING (casino, table_id, round_id)
LEFT JOIN envy_paid AS p USING (casino, table_id, round_id, seat)
WHERE t."row" = 'total'
  AND t.expected_cents IS NOT NULL
  AND coalesce(p.owable, 0) < t.expected_cents
ORDER BY t.casino, t.table_id, t.round_id, t.seat
