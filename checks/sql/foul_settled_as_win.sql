-- id: foul_settled_as_win
-- title: Fouled hand settled as a win or a push: a seat's high hand set below its low hand, and its main wager not collected
-- severity: high
-- rule: a foul loses the main (Face Up) wager: 58 Pa. Code § 688a.7(f)(1)(iii), (iv) and § 688a.1 ("High hand"); pai gow poker procedure (2); PR pai gow tiles ¶ H; docs/rules.md 1.1, 6a.5, 6a.6 (the side wagers are still settled on the seven cards), 6a.16
-- next: pull the round's video at the time shown and confirm how the seat set its hands (a foul the dealer did not call is a procedure fault); collect the wager, and log it against the dealer
-- catches: foul_paid
-- Offending rows: the main wager of a seat whose hand replay judged fouled (hands.foul) in a
-- judged round, recorded as a win or a push, or with a net of zero or more where the rules
-- take the wager. Only the main wager: a fouled hand's Ace High, Fortune and Progressive are
-- settled on the seven cards (6a.6). The player banker's own main wager is not a wager
-- against anyone (a fouled banker hand is compared as set, 6a.7). recorded/expected: the
-- wager's net; the same wager is also flagged by paid_loser or overpay, which count the money
-- of every wrong net, this check naming the cause.
SELECT
    w.casino,
    w.round_id,
    w.table_id,
    w.seat,
    w.wager,
    w.recorded_net_cents AS recorded_cents,
    w.expected_net_cents AS expected_cents,
    w.game || ' seat ' || w.seat || ' fouled (high ' || coalesce(h.high, '?') || ', low '
        || coalesce(h.low, '?') || ') and its main wager of ' || w.amount_cents
        || ' was recorded ' || coalesce(w.recorded_outcome, 'unsettled') || ' '
        || coalesce(CAST(w.recorded_net_cents AS VARCHAR), '') || '; a foul loses: expected '
        || coalesce(w.expected_outcome, '?') || ' '
        || coalesce(CAST(w.expected_net_cents AS VARCHAR), '') || ' (cents)' AS detail
FROM hands AS h
JOIN wager_exceptions AS w
  ON w.casino = h.casino AND w.table_id = h.table_id AND w.round_id = h.round_id
 AND w.seat = h.seat
ANTI JOIN unjudged AS u
  ON u.casino = w.casino AND u.table_id = w.table_id AND u.round_id = w.round_id
WHERE h.seat IS NOT NULL
  AND h.foul
  AND w.wager = 'main'
  AND w.position <> 'banker'
  AND w.recorded_net_cents IS NOT NULL
  AND (w.recorded_outcome IN ('win', 'push')
       OR (w.recorded_net_cents >= 0 AND w.expected_net_cents < 0))
ORDER BY w.casino, w.table_id, w.round_id, w.seat
