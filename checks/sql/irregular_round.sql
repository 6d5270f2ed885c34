-- id: irregular_round
-- title: Irregular round: the record of a judged round holds events that do not fit (past-posting, cards dealt twice, a setting changed after exposure, a wager settled twice or never placed, a void without reason, a round with no RoundEnded in the log ...)
-- severity: high
-- rule: docs/rules.md 8.1, 8.2, 8.3, 8.6 (irregularities of the record are reported beside the judgement, all at once; every round accounted for, from its start to its end)
-- next: read the round's reconstruction and its problems; pull the video at the time shown and have the floorperson document the irregularity (past-posting, a re-deal, a void without reason)
SELECT
    r.casino,
    r.round_id,
    r.table_id,
    NULL::INTEGER AS seat,
    NULL::BIGINT AS recorded_cents,
    NULL::BIGINT AS expected_cents,
    r.problems AS detail
FROM rounds AS r
WHERE r.evaluated
  AND r.problems IS NOT NULL
ORDER BY r.casino, r.table_id, r.round_id
