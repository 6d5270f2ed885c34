-- id: commission_wrong
-- title: Commission of the wrong amount on a winning wager (beyond the ruleset's lawful rounding)
-- severity: high
-- rule: pai gow poker settlement (15) and 58 Pa. Code § 688a.7(f) (5% of the win, as the ruleset rounds it); PR pai gow tiles ¶ K (vigorish rounded to 25 cents); docs/rules.md 6 and 6a
-- next: recompute the commission with the table supervisor from the ruleset's rate and rounding; refund an overcharge or collect the shortfall, and log it against the dealer
-- Offending rows: every settled wager of a judged round (not the player banker's account,
-- which banker_mispay checks) recorded and expected as a win whose recorded commission
-- differs from the one the rules require. The expected commission already applies the
-- ruleset's lawful rounding, so a lawfully rounded commission is never flagged.
-- recorded/expected are the commission's effect on the patron's net (minus the commission),
-- so that over and under mean what they mean for every money flag: a commission too small
-- overpays the patron, one too large underpays.
SELECT
    w.casino,
    w.round_id,
    w.table_id,
    w.seat,
    w.wager,
    -w.recorded_commission_cents AS recorded_cents,
    -w.expected_commission_cents AS expected_cents,
    w.game || ' ' || w.position || ' ' || w.wager || ': commission recorded '
        || w.recorded_commission_cents || ', the rules require '
        || w.expected_commission_cents || ' (cents)' AS detail
FROM wager_exceptions AS w
ANTI JOIN unjudged AS u USING (casino, table_id, round_id)
WHERE w.recorded_outcome = 'win'
  AND w.expected_outcome = 'win'
  AND w.expected_commission_cents IS NOT NULL
  AND coalesce(w.recorded_commission_cents, 0) <> w.expected_commission_cents
  AND w.position <> 'banker'
ORDER BY w.casino, w.table_id, w.round_id, w.seat, w.wager
