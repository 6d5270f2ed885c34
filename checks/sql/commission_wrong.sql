-- id: commission_wrong
-- title: Commission of the wrong amount on a winning wager (outside the lawful range the ruleset states), or one that does not match the net paid
-- severity: high
-- rule: pai gow poker settlement (15) and 58 Pa. Code § 688a.7(f) (5% of the win, as the ruleset rounds it); PR pai gow tiles ¶ K (vigorish 5%, which the house may round up to the next multiple of 25 cents); docs/rules.md 6, 6a.1, 6a.2 (from the exact 5% to the rounded-up amount, never more than the win), 6a.19
-- next: recompute the commission with the table supervisor from the ruleset's rate and its lawful range; refund an overcharge or collect the shortfall, and log it against the dealer
-- catches: wrong_commission
-- Offending rows: every settled wager of a judged round (not the player banker's account,
-- which banker_commission_wrong checks) recorded and expected as a win whose recorded
-- commission is outside the lawful range [expected_commission_min_cents,
-- expected_commission_max_cents] (docs/rules.md 6a.19: pai gow tiles from the exact 5%,
-- rounded down to the cent, up to the next multiple of 25 cents and never more than the
-- win; pai gow poker the one amount, 5% rounded down), or whose commission is within it but
-- does not match the net recorded (net + commission is not the amount won: the patron was
-- paid lawfully but the commission recorded is not what was taken). recorded/expected are
-- the commission's effect on the patron's net (minus the commission; expected the nearer
-- end of the range), so that over and under mean what they mean for every money flag: a
-- commission too small overpays the patron, one too large underpays. The mismatch carries
-- no amounts: the patron's net is lawful, and the money, if any, is the recorded books'.
SELECT
    w.casino,
    w.round_id,
    w.table_id,
    w.seat,
    w.wager,
    -w.recorded_commission_cents AS recorded_cents,
    CASE WHEN c.charged > w.expected_commission_max_cents THEN -w.expected_commission_max_cents
         WHEN c.charged < w.expected_commission_min_cents THEN -w.expected_commission_min_cents
         END AS expected_cents,
    w.game || ' ' || w.position || ' ' || w.wager || ': commission recorded ' || c.charged
        || CASE WHEN c.charged BETWEEN w.expected_commission_min_cents
                                   AND w.expected_commission_max_cents
                THEN ' is lawful, but the net recorded ' || w.recorded_net_cents
                     || ' plus the commission is not the win of ' || c.won
                     || ': the commission taken was ' || (c.won - w.recorded_net_cents)
                ELSE ', the rules require '
                     || CASE WHEN w.expected_commission_min_cents
                                  = w.expected_commission_max_cents
                             THEN CAST(w.expected_commission_cents AS VARCHAR)
                             ELSE w.expected_commission_min_cents || ' to '
                                  || w.expected_commission_max_cents || ' (the house collects '
                                  || w.expected_commission_cents || ')' END
                     || CASE WHEN c.charged > c.won
                             THEN '; it is more than the win of ' || c.won
                                  || ': a commission never turns a winning wager into a loss '
                                  || '(docs/rules.md 6a.2)'
                             ELSE '' END END
        || ' (cents)' AS detail
FROM wager_exceptions AS w
ANTI JOIN unjudged AS u USING (casino, table_id, round_id),
LATERAL (SELECT coalesce(w.recorded_commission_cents, 0) AS charged,
                w.expected_net_cents + w.expected_commission_cents AS won) AS c
WHERE w.recorded_outcome = 'win'
  AND w.expected_outcome = 'win'
  AND w.expected_commission_cents IS NOT NULL
  AND w.position <> 'banker'
  AND (c.charged NOT BETWEEN w.expected_commission_min_cents AND w.expected_commission_max_cents
       OR (w.recorded_net_cents BETWEEN w.expected_net_min_cents AND w.expected_net_max_cents
           AND w.recorded_net_cents + c.charged <> c.won))
ORDER BY w.casino, w.table_id, w.round_id, w.seat, w.wager
