-- id: overpay
-- title: Overpay: a wager settled for more than the rules allow (a winner paid too much, a push or a returned wager paid, a loser collected short)
-- severity: high
-- rule: docs/rules.md 6, 6a and 6a.19 (the lawful range where the house may choose; every wager of every game: main, ante, raise, Ace High, Fortune, Progressive, and the dealer's own wager against a player banker); pai gow poker settlement (15); 58 Pa. Code § 688a.7(f), (h); PR pai gow tiles ¶ K; Caribbean stud rules 9.3, 9.4
-- next: pull the round's video at the time shown, confirm the cards and the payment, then recover the overpayment and log it against the dealer
-- catches: overpay
-- One of the four settlement checks (paid_loser, collected_winner, overpay, underpay) that
-- partition every judged wager whose recorded net falls outside its lawful range (where the
-- texts let the house choose, a commission from the exact 5% to the rounded-up amount, the
-- range is wider than the house's default: docs/rules.md 6a.19): here the recorded net is
-- above the highest lawful net, except a loser paid as a win (paid_loser). A commission too
-- small, or one taken on a push, also shows here as a wrong net (and on its own in
-- commission_wrong / commission_on_push_or_loss). expected: the highest lawful net, so the
-- amount at stake is what was paid beyond it; the detail gives the house's default and the
-- range. Amount at stake and direction: computed by the runner, never overflowing.
SELECT
    w.casino,
    w.round_id,
    w.table_id,
    w.seat,
    w.wager,
    w.recorded_net_cents AS recorded_cents,
    w.expected_net_max_cents AS expected_cents,
    w.game || ' ' || w.position || ' ' || w.wager || ': recorded ' || w.recorded_outcome || ' '
        || w.recorded_net_cents || ', expected ' || w.expected_outcome || ' '
        || w.expected_net_cents || CASE WHEN w.expected_net_min_cents < w.expected_net_max_cents
             THEN ' (lawful ' || w.expected_net_min_cents || ' to ' || w.expected_net_max_cents
                  || ')' ELSE '' END || ' (cents)' AS detail
FROM wager_exceptions AS w
ANTI JOIN unjudged AS u USING (casino, table_id, round_id)
WHERE w.recorded_net_cents IS NOT NULL
  AND w.expected_net_cents IS NOT NULL
  AND w.recorded_net_cents > w.expected_net_max_cents
  AND NOT (w.expected_net_max_cents < 0 AND w.recorded_net_cents > 0)  -- paid_loser
ORDER BY w.casino, w.table_id, w.round_id, w.seat NULLS FIRST, w.wager
