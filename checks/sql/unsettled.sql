-- id: unsettled
-- title: Unsettled wager: a wager was placed but the table recorded no settlement
-- severity: high
-- rule: docs/rules.md 8.1; pai gow poker settlement (4), (7); Caribbean stud rules 9.3, 9.4 (every wager placed is settled before the round ends)
-- next: confirm on video whether the wager was paid or collected; have the table record the settlement, or the floorperson settle it
-- catches: none
SELECT
    w.casino,
    w.round_id,
    w.table_id,
    w.seat,
    w.wager,
    NULL::BIGINT AS recorded_cents,
    w.expected_net_cents AS expected_cents,
    w.wager || ' of ' || w.amount_cents || ' cents has no recorded settlement' AS detail
FROM wager_exceptions AS w
WHERE w.recorded_net_cents IS NULL
  AND w.position <> 'banker'  -- the bank is settled by the banker's account (banker_mispay)
ORDER BY w.casino, w.table_id, w.round_id, w.seat, w.wager
