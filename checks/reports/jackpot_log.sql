-- report: jackpot_log
-- title: The jackpot log: every progressive hit, its award, its verification, where it was paid from, and the meter before and after
-- rule: 58 Pa. Code § 688a.7(h)(3)(i)(B)(1)-(4) (verify the hand, the light, a floorperson's validation, payment; a percentage-of-meter award never from the table inventory); Caribbean stud rules 9.5 and 9.6
-- A report, not a check: one row per jackpot declared or won (replay's jackpots), oldest
-- first. meter_before: the meter read in the hit's round (the award is a share of it);
-- meter_after: the next reading of the same meter (its id at its casino, else the table's,
-- as checks/sql/meter_discontinuity.sql follows it), and in which round; reset_cents: the
-- ruleset's reset amount (null: the ruleset names none, so meter_discontinuity does not
-- judge the reading after the hit). steps_missing: the verification steps not recorded.
WITH readings AS (
    SELECT r.casino, r.table_id, r.round_id, r.dealt_at, r.progressive_meter_cents AS meter,
           r.progressive_reset_cents AS reset_cents,
           lead(r.round_id) OVER meter_order AS next_round,
           lead(r.table_id) OVER meter_order AS next_table,
           lead(r.progressive_meter_cents) OVER meter_order AS next_meter
    FROM rounds AS r
    WHERE r.progressive_meter_cents IS NOT NULL AND r.dealt_at IS NOT NULL
    WINDOW meter_order AS (
        PARTITION BY r.casino, coalesce('id:' || r.progressive_meter_id, 'table:' || r.table_id)
        ORDER BY r.dealt_at, r.round_id)
)
SELECT j.casino, j.table_id, j.round_id, ro.dealt_at, j.seat, j.hand AS declared_hand,
       j.judged_hand, j.recorded_award_cents, j.expected_net_cents AS expected_award_cents,
       j.award_from_meter, j.hand_verified, j.light_illuminated, j.validated, j.validated_by,
       j.validator_role, j.paid, j.paid_from, j.documented,
       concat_ws(', ', CASE WHEN NOT j.hand_verified THEN 'hand verified' END,
                 CASE WHEN NOT j.light_illuminated THEN 'light illuminated' END,
                 CASE WHEN NOT j.validated THEN 'validated' END,
                 CASE WHEN NOT j.paid THEN 'paid' END,
                 CASE WHEN NOT j.documented THEN 'documented' END) AS steps_missing,
       j.progressive_meter_cents AS meter_before, rd.next_meter AS meter_after,
       rd.next_table AS meter_after_table, rd.next_round AS meter_after_round,
       rd.reset_cents
FROM jackpots AS j
LEFT JOIN rounds AS ro USING (casino, table_id, round_id)
LEFT JOIN readings AS rd USING (casino, table_id, round_id)
ORDER BY ro.dealt_at, j.casino, j.table_id, j.round_id, j.seat
