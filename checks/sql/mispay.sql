-- id: mispay
-- title: Mispay: a main wager settled for a different amount than the rules require
-- severity: high
-- rule: REFERENCE.md 1.1 and 6 (win both hands: 1:1 less 5% commission; one of two: push; lose both, copies and fouls: the wager loses); 6a.1 commission rounded down to the cent
-- Offending rows: every settled wager of a judged round whose recorded net differs from the
-- expected net. difference_cents = recorded - expected: positive is an overpay, negative an underpay.
SELECT
    w.round_id,
    w.table_id,
    w.seat,
    w.recorded_net_cents AS recorded_cents,
    w.expected_net_cents AS expected_cents,
    w.recorded_net_cents - w.expected_net_cents AS difference_cents,
    w.wager || ': recorded ' || w.recorded_outcome || ' ' || w.recorded_net_cents
        || ', expected ' || w.expected_outcome || ' ' || w.expected_net_cents || ' (cents)' AS detail
FROM wagers AS w
JOIN rounds AS r USING (round_id)
WHERE r.evaluated
  AND w.recorded_net_cents IS NOT NULL
  AND w.expected_net_cents IS NOT NULL
  AND w.recorded_net_cents <> w.expected_net_cents
ORDER BY w.table_id, w.round_id, w.seat, w.wager
