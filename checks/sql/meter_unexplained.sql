-- id: meter_unexplained
-- title: Progressive meter moved within a round without a reason (read again with another amount)
-- severity: medium
-- rule: docs/rules.md 6a.13 (a percentage award is taken from that round's meter) and 8.7 (the award paid from the meter, never from the table inventory); 58 Pa. Code § 688a.7(h)(3)(i)(B)(4)
-- next: compare the meter readings with the progressive controller's log and the video; find why the meter moved (another table on the same link, a reset, tampering), and recompute any percentage award of the round from the right reading
-- catches: none
-- Offending rows: every round whose problem kinds include meter_changed (replay's fold: a
-- ProgressiveMeterRead of the round reads another amount than an earlier one; the last
-- reading counts). The round is flagged whether it was judged or not.
SELECT
    r.casino,
    r.round_id,
    r.table_id,
    NULL::INTEGER AS seat,
    coalesce(nullif(array_to_string(flatten(list_transform(coalesce(r.problems, []),
        lambda p: regexp_extract_all(p,
            'progressive meter read -?\d+ after -?\d+ in the same round \(table_seq \d+\)'))),
        '; '), ''),
        nullif(array_to_string(coalesce(r.problems, []), '; '), ''), 'the progressive meter changed within the round') AS detail
FROM round_problems AS r
WHERE list_contains(r.problem_kinds, 'meter_changed')
ORDER BY r.casino, r.table_id, r.round_id
