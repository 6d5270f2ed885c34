-- id: award_from_inventory
-- title: A progressive award that is a percentage of the meter was paid from the table inventory
-- severity: high
-- rule: 58 Pa. Code § 688a.7(h)(3)(i)(B)(4) ("the progressive payout may not be paid from the table inventory container"); docs/rules.md 6a.13, 8.7
-- next: have the shift manager reconcile the table inventory for the round (fill/credit slips, the progressive meter reading) and reimburse the container from the progressive fund; report it to compliance
SELECT
    j.casino,
    j.round_id,
    j.table_id,
    j.seat,
    'progressive' AS wager,
    j.recorded_award_cents AS recorded_cents,
    'seat ' || j.seat || ' ' || coalesce(j.hand, '?') || ': a percentage-of-meter award of '
        || coalesce(CAST(j.recorded_award_cents AS VARCHAR), '?')
        || ' cents paid from the table inventory' AS detail
FROM jackpots AS j
WHERE j.award_from_meter
  AND j.paid_from = 'table_inventory'
ORDER BY j.casino, j.table_id, j.round_id, j.seat
