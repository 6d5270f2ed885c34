-- id: mispay
-- title: Mispay: a wager of any game settled for a different amount than the rules require
-- severity: high
-- rule: docs/rules.md 6 and 6a (every wager of every game: main, ante, raise, Ace High, Fortune, Progressive, and the dealer's own wager against a player banker); pai gow poker settlement (15); 58 Pa. Code § 688a.7(f), (h); PR pai gow tiles ¶ K; Caribbean stud rule 9.4
-- next: pull the round's video at the time shown, confirm the cards and the payment, then recover an overpay or pay the shortfall and log it against the dealer
-- Offending rows: every settled wager of a judged round whose recorded net differs from the
-- expected net. The runner computes the amount at stake, |recorded - expected|, and its
-- direction (over: overpaid, under: underpaid) in HUGEINT, so an absurd amount is a flag,
-- never an overflow.
SELECT
    w.casino,
    w.round_id,
    w.table_id,
    w.seat,
    w.wager,
    w.recorded_net_cents AS recorded_cents,
    w.expected_net_cents AS expected_cents,
    w.game || ' ' || w.position || ' ' || w.wager || ': recorded ' || w.recorded_outcome || ' '
        || w.recorded_net_cents || ', expected ' || w.expected_outcome || ' '
        || w.expected_net_cents || ' (cents)' AS detail
FROM wagers AS w
JOIN rounds AS r USING (casino, table_id, round_id)
WHERE r.evaluated
  AND w.recorded_net_cents IS NOT NULL
  AND w.expected_net_cents IS NOT NULL
  AND w.recorded_net_cents <> w.expected_net_cents
ORDER BY w.casino, w.table_id, w.round_id, w.seat NULLS FIRST, w.wager
