-- id: void_without_reason
-- title: Round voided without a reason
-- severity: high
-- rule: docs/rules.md 8.4 (a void returns every wager; a void recorded without a reason is an irregularity)
-- next: have the floorperson record why the round was voided, from the video and the pit's record; a void that returned losing wagers without cause is reported to surveillance
-- catches: none
-- Offending rows: every round whose problem kinds include void_without_reason (replay's fold:
-- a RoundVoided whose reason is empty), judged or not. The void itself returns every wager
-- (docs/rules.md 8.4); a wager paid in a voided round is a money flag of the wager checks.
SELECT
    r.casino,
    r.round_id,
    r.table_id,
    NULL::INTEGER AS seat,
    coalesce(list_filter(list_transform(coalesce(r.problems, []), lambda p: regexp_extract(p,
                 'round voided without a reason \(table_seq \d+\)')), lambda said: said <> '')[1],
             nullif(array_to_string(coalesce(r.problems, []), '; '), ''), 'round voided without a reason') AS detail
FROM round_problems AS r
WHERE list_contains(r.problem_kinds, 'void_without_reason')
ORDER BY r.casino, r.table_id, r.round_id
