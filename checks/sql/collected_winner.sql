-- id: collected_winner
-- title: Winning wager collected: the rules say the wager won, the table took it as a loss
-- severity: high
-- rule: a winning wager is paid: pai gow poker settlement (1), (15) (a hand that wins both is paid even money less the commission); 58 Pa. Code § 688a.7(f)(3) (the Face Up wager wins), (h) (a side wager paid at its odds); PR pai gow tiles ¶ J, ¶ K; Caribbean stud rules 9.3.1, 9.4.1.1; docs/rules.md 1.1, 1.2, 2.2, 3.4, 4.2, 6, 6a.12, 6a.17
-- next: pull the round's video at the time shown and confirm the cards and the collection; pay the patron what was won and log it against the dealer
-- catches: collected_winner
-- One of the four settlement checks (paid_loser, collected_winner, overpay, underpay) that
-- partition every judged wager whose recorded net falls outside its lawful range
-- (docs/rules.md 6a.19): here every lawful net is positive (the wager won: the lowest lawful
-- net is above zero) and the recorded net is negative (it was collected); expected: the
-- lowest lawful net. A win whose lawful net may be 0 (a commission as large as the win,
-- 6a.2) and that was collected is underpay's. Amount at stake and direction: computed by
-- the runner, never overflowing.
SELECT
    w.casino,
    w.round_id,
    w.table_id,
    w.seat,
    w.wager,
    w.recorded_net_cents AS recorded_cents,
    w.expected_net_min_cents AS expected_cents,
    w.game || ' ' || w.position || ' ' || w.wager || ': a winner collected as a loss: recorded '
        || w.recorded_outcome || ' ' || w.recorded_net_cents || ', expected '
        || w.expected_outcome || ' ' || w.expected_net_cents || CASE WHEN w.expected_net_min_cents < w.expected_net_max_cents
             THEN ' (lawful ' || w.expected_net_min_cents || ' to ' || w.expected_net_max_cents
                  || ')' ELSE '' END
        || ' (cents)' AS detail
FROM wager_exceptions AS w
ANTI JOIN unjudged AS u USING (casino, table_id, round_id)
WHERE w.recorded_net_cents IS NOT NULL
  AND w.expected_net_cents IS NOT NULL
  AND w.expected_net_min_cents > 0
  AND w.recorded_net_cents < 0
ORDER BY w.casino, w.table_id, w.round_id, w.seat NULLS FIRST, w.wager
