-- id: settled_not_placed
-- title: Settlement of a wager never placed: the table paid or collected a wager the record shows no one made
-- severity: high
-- rule: only a wager placed before the deal is settled: pai gow poker settlement (4), (7) (the wagers on the layout are settled); 58 Pa. Code § 688a.7(f), (h) (the Face Up wager and the optional wagers placed); Caribbean stud rules 9.3, 9.4; docs/rules.md 8.1, 8.3 (the record of a round holds every wager from its placement to its settlement)
-- next: pull the round's video at the time shown: was the wager on the layout and its placement not recorded (a device or procedure fault: have the table record it), or was money paid or taken on a wager that never existed (recover it, log it against the dealer)?
-- catches: settled_not_placed
-- replay's fold marks the round with the problem kind settled_not_placed and keeps the
-- settlement, but writes no wagers row for it (wagers.parquet holds placed wagers only) and
-- the round is still judged (its placed wagers are all covered). The seat and wager come
-- from the problem's text, "<seat N|dealer> <wager> settled but never placed (table_seq N)";
-- a round whose problems hold the kind but no such text is flagged once, seat unknown. The
-- settlement's amount is not in replay's output, so this is not a money flag.
WITH marked AS (
    SELECT r.casino, r.table_id, r.round_id, array_to_string(r.problems, '; ') AS problems,
           flatten(list_transform(coalesce(r.problems, []), lambda p: regexp_extract_all(p,
               '(dealer|seat [0-9]+) (\S+) settled but never placed \(table_seq [0-9]+\)',
               0))) AS found
    FROM round_problems AS r
    WHERE list_contains(r.problem_kinds, 'settled_not_placed')
), each_one AS (
    SELECT casino, table_id, round_id, unnest(found) AS text
    FROM marked
)
SELECT
    casino,
    round_id,
    table_id,
    CAST(nullif(regexp_extract(text, '^seat ([0-9]+) ', 1), '') AS INTEGER) AS seat,
    regexp_extract(text, '^(dealer|seat [0-9]+) (\S+) ', 2) AS wager,
    NULL::BIGINT AS recorded_cents,
    NULL::BIGINT AS expected_cents,
    text AS detail
FROM each_one
UNION ALL
SELECT
    casino,
    round_id,
    table_id,
    NULL::INTEGER AS seat,
    NULL AS wager,
    NULL::BIGINT AS recorded_cents,
    NULL::BIGINT AS expected_cents,
    'a settlement of a wager never placed (seat not named in the problems: '
        || coalesce(nullif(problems, ''), 'none recorded') || ')' AS detail
FROM marked
WHERE len(found) = 0
ORDER BY casino, table_id, round_id, seat NULLS FIRST, wager, detail
