-- id: irregular_round
-- title: Irregular round: the record of a judged round holds events that do not fit (past-posting, cards dealt twice, a setting changed after exposure, a wager settled twice or never placed, a void without reason ...)
-- severity: high
-- rule: docs/rules.md 8.1, 8.2, 8.3 (irregularities of the record are reported beside the judgement, all at once)
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
