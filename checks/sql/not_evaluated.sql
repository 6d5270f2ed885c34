-- id: not_evaluated
-- title: Round not evaluated: the log does not hold enough to judge the round (no RoundStarted, cards never dealt, a wager the judgement does not cover ...)
-- severity: medium
-- rule: docs/rules.md 8.1 (a round that cannot be judged, or whose recorded wagers were not all judged, is not evaluated, never passed)
-- next: find the missing events (device, ingest or a dealer procedure skipped) from the reconstruction's reasons; judge the round by hand from video if the log cannot be completed
-- catches: none
SELECT
    r.casino,
    r.round_id,
    r.table_id,
    NULL::INTEGER AS seat,
    NULL::BIGINT AS recorded_cents,
    NULL::BIGINT AS expected_cents,
    coalesce(nullif(array_to_string(coalesce(r.problems, []), '; '), ''), 'no reason recorded') AS detail
FROM round_problems AS r
WHERE NOT r.evaluated
ORDER BY r.casino, r.table_id, r.round_id
