-- id: paid_loser
-- title: Losing wager paid: the rules say the wager lost, the table paid it as a win
-- severity: critical
-- rule: a losing wager is collected, never paid: pai gow poker settlement (1), (2), (5), (6), (9) (a hand that loses both, or a copy, goes to the banker); 58 Pa. Code § 688a.7(f)(1) (the Face Up wager loses), (h) (a side wager without its hand loses); PR pai gow tiles ¶ F.1, ¶ H; Caribbean stud rules 9.4.1.2, 9.7; docs/rules.md 1.1, 2.2, 3.4, 4.2, 6, 6a.6, 6a.12, 6a.16, 6a.17
-- next: pull the round's video at the time shown and confirm the cards and the payment; recover the payment, review the dealer's other rounds with this player (a loser paid as a winner is the first sign of collusion), and log it against the dealer
-- catches: paid_loser
-- One of the four settlement checks (paid_loser, collected_winner, overpay, underpay) that
-- partition every judged wager whose recorded net falls outside its lawful range (the
-- dealer's own wager against a player banker included; the player banker's account is
-- checked by banker_mispay and co_bank_share_wrong; docs/rules.md 6a.19): here every lawful
-- net is negative (the wager lost: the highest lawful net is below zero) and the recorded
-- net is positive (it was paid); expected: the highest lawful net. The runner computes the amount at stake,
-- |recorded - expected|, and its direction in HUGEINT: an absurd amount is a flag, never an
-- overflow.
SELECT
    w.casino,
    w.round_id,
    w.table_id,
    w.seat,
    w.wager,
    w.recorded_net_cents AS recorded_cents,
    w.expected_net_max_cents AS expected_cents,
    w.game || ' ' || w.position || ' ' || w.wager || ': a loser paid as a win: recorded '
        || w.recorded_outcome || ' ' || w.recorded_net_cents || ', expected '
        || w.expected_outcome || ' ' || w.expected_net_cents || CASE WHEN w.expected_net_min_cents < w.expected_net_max_cents
             THEN ' (lawful ' || w.expected_net_min_cents || ' to ' || w.expected_net_max_cents
                  || ')' ELSE '' END
        || ' (cents)' AS detail
FROM wager_exceptions AS w
ANTI JOIN unjudged AS u USING (casino, table_id, round_id)
WHERE w.recorded_net_cents IS NOT NULL
  AND w.expected_net_cents IS NOT NULL
  AND w.expected_net_max_cents < 0
  AND w.recorded_net_cents > 0
ORDER BY w.casino, w.table_id, w.round_id, w.seat NULLS FIRST, w.wager
