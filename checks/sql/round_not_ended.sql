-- id: round_not_ended
-- title: Round started but never ended in the log (no RoundEnded)
-- severity: medium
-- rule: docs/rules.md 8.1, 8.6 (every round accounted for, from its start to its end)
-- next: check whether the round was still being dealt when the log was read (the table's last round: replay again later); otherwise find the lost RoundEnded (table device, topic, ingest) and confirm on video how the round ended
-- catches: none
-- Offending rows: every round whose problem kinds include not_ended (replay's fold: the round
-- started but the log holds no RoundEnded), judged or not. A table's last round may only be
-- in progress when the log was read; the detail says where its events stop.
SELECT
    r.casino,
    r.round_id,
    r.table_id,
    NULL::INTEGER AS seat,
    coalesce(list_filter(list_transform(coalesce(r.problems, []), lambda p: regexp_extract(p,
                 'the round has no RoundEnded in the log \(last event at '
                 || 'table_seq \d+\)[^;]*')), lambda said: said <> '')[1],
             nullif(array_to_string(coalesce(r.problems, []), '; '), ''), 'no RoundEnded in the log') AS detail
FROM round_problems AS r
WHERE list_contains(r.problem_kinds, 'not_ended')
ORDER BY r.casino, r.table_id, r.round_id
