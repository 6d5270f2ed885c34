-- id: award_from_inventory
-- title: A progressive award that is a percentage of the meter was paid from the table inventory
-- severity: high
-- rule: 58 Pa. Code § 688a.7(h)(3)(i)(B)(4) ("the progressive payout may not be paid from the table inventory container"); docs/rules.md 6a.13, 8.7
-- next: have the shift manager reconcile the table inventory for the round (fill/credit slips, the progressive meter reading) and reimburse the container from the progressive fund; report it to compliance
-- catches: award_from_inventory
-- Offending rows: every jackpot paid from the table inventory whose award, for the class
-- the engine judged from the seat's cards (jackpots.judged_hand; never the class the table
-- declared, which a device may misname), is a percentage of the meter on the judging
-- ruleset's progressive paytable (jackpots.award_from_meter).
SELECT
    j.casino,
    j.round_id,
    j.table_id,
    j.seat,
    'progressive' AS wager,
    j.recorded_award_cents AS recorded_cents,
    'seat ' || j.seat || ' ' || coalesce(j.judged_hand, '?') || ': a percentage-of-meter award of '
        || coalesce(CAST(j.recorded_award_cents AS VARCHAR), '?')
        || ' cents paid from the table inventory'
        || CASE WHEN j.hand IS DISTINCT FROM j.judged_hand
                THEN ' (declared ' || coalesce(j.hand, 'no class') || ')' ELSE '' END AS detail
FROM jackpots AS j
WHERE j.award_from_meter
  AND j.paid_from = 'table_inventory'
ORDER BY j.casino, j.table_id, j.round_id, j.seat
