-- id: folded_hand_paid
-- title: A hand given up (folded, conceded or withdrawn) whose forfeited wager was paid
-- severity: high
-- rule: a fold loses the ante (docs/rules.md 4.2, 6a.17); a conceded hand loses the ante, the raise and the progressive and never comes back into play (Caribbean stud rules 9.7, 9.8; docs/rules.md 6a.17); a withdrawn pai gow tiles seat's wager is collected at once (PR pai gow tiles ¶ F.1; docs/rules.md 6a.16)
-- next: pull the round's video at the time shown and confirm the seat's decision (fold, concede or withdrawal) and the payment; recover the payment and log it against the dealer
-- catches: none
-- Offending rows: every wager of a judged round recorded with a positive net or as a win
-- whose seat's last decision (hands.action) was fold, concede or withdraw, except the
-- progressive wager of a folded Caribbean stud hand, which is still paid on the seat's own
-- hand (docs/rules.md 6a.17, NZ amendment No. 20 to rule 9.2(a)). recorded/expected: the
-- wager's net; the same wager is also flagged by paid_loser, which counts the money, this
-- check naming the cause.
SELECT
    w.casino,
    w.round_id,
    w.table_id,
    w.seat,
    w.wager,
    w.recorded_net_cents AS recorded_cents,
    w.expected_net_cents AS expected_cents,
    w.game || ' seat ' || w.seat || ' ' || CASE h.action WHEN 'fold' THEN 'folded'
                                                      WHEN 'concede' THEN 'conceded'
                                                      ELSE 'withdrew' END
        || ', yet its ' || w.wager || ' of ' || w.amount_cents || ' was recorded '
        || coalesce(w.recorded_outcome, '?') || ' ' || w.recorded_net_cents || ', expected '
        || coalesce(w.expected_outcome, '?') || ' '
        || coalesce(CAST(w.expected_net_cents AS VARCHAR), '?') || ' (cents)' AS detail
FROM hands AS h
JOIN wager_exceptions AS w
  ON w.casino = h.casino AND w.table_id = h.table_id AND w.round_id = h.round_id
 AND w.seat = h.seat
ANTI JOIN unjudged AS u
  ON u.casino = w.casino AND u.table_id = w.table_id AND u.round_id = w.round_id
WHERE h.seat IS NOT NULL
  AND h.action IN ('fold', 'concede', 'withdraw')
  AND NOT (h.action = 'fold' AND w.wager = 'progressive')
  AND w.recorded_net_cents IS NOT NULL
  AND (w.recorded_net_cents > 0 OR w.recorded_outcome = 'win')
ORDER BY w.casino, w.table_id, w.round_id, w.seat, w.wager
