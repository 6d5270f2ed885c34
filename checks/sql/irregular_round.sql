-- id: irregular_round
-- title: Irregular round: the record of a judged round holds events that do not fit (past-posting, cards dealt twice, a wager settled twice or never placed ...)
-- severity: high
-- rule: DESIGN.md users ("wagers placed after the cards came out") and principle 3 (an impossible event is never silent); STYLE.md 7 (report all problems at once)
SELECT
    r.round_id,
    r.table_id,
    NULL::INTEGER AS seat,
    NULL::BIGINT AS recorded_cents,
    NULL::BIGINT AS expected_cents,
    NULL::BIGINT AS difference_cents,
    r.problems AS detail
FROM rounds AS r
WHERE r.evaluated
  AND r.problems IS NOT NULL
ORDER BY r.table_id, r.round_id
