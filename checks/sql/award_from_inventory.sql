-- id: award_from_inventory
-- title: A progressive award that is a percentage of the meter was paid from the table inventory
-- severity: high
-- rule: 58 Pa. Code § 688a.7(h)(3)(i)(B)(4) ("the progressive payout may not be paid from the table inventory container"); docs/rules.md 6a.13, 8.7
SELECT
    j.casino,
    j.round_id,
    j.table_id,
    j.seat,
    j.recorded_award_cents AS recorded_cents,
    j.expected_net_cents AS expected_cents,
    NULL::BIGINT AS difference_cents,
    'seat ' || j.seat || ' ' || coalesce(j.hand, '?') || ': a percentage-of-meter award of '
        || coalesce(CAST(j.recorded_award_cents AS VARCHAR), '?')
        || ' cents paid from the table inventory' AS detail
FROM jackpots AS j
WHERE j.award_from_meter
  AND j.paid_from = 'table_inventory'
ORDER BY j.casino, j.table_id, j.round_id, j.seat
