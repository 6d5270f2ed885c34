-- id: raise_not_twice_ante
-- title: Caribbean stud raise that is not exactly twice the ante
-- severity: medium
-- rule: the player folds or raises exactly twice the ante: docs/rules.md 4.2, 6 (Caribbean stud), 6a.17 (the raise is settled on the amount recorded, and flagged separately)
-- next: pull the round's video at the time shown and count the raise on the layout; if the table accepted a raise of the wrong size, correct the dealer's procedure and review the seat's other rounds (a raise sized after seeing the dealer's hand is past-posting)
-- catches: raise_not_twice_ante
-- Offending rows: every seat of a judged round whose raise is not the ruleset's multiple
-- of its ante (raise_ante_multiple, 2 in the shipped Caribbean stud ruleset). The rules
-- engine judges the round under its ruleset and notes each such raise among the round's
-- rule irregularities ("seat N raised R on an ante of A: the raise is M x the ante (X)";
-- replay/games/caribbean_stud.py), so only those rounds' wagers are read, and the multiple
-- is the one of the ruleset in force. Not a money flag: the raise is settled on the amount
-- recorded (6a.17), so nothing was paid wrongly; the detail gives the raise and the
-- multiple of the ante. A seat that folded has no raise and is not concerned.
WITH noted AS (  -- the engine's sentence, one row a seat
    SELECT r.casino, r.table_id, r.round_id,
           CAST(regexp_extract(x, '^seat (\d+) raised', 1) AS INTEGER) AS seat,
           CAST(regexp_extract(x, 'the raise is (\d+) x the ante', 1) AS BIGINT) AS multiple
    FROM round_problems AS r,
         unnest(flatten(list_transform(coalesce(r.problems, []), lambda p: regexp_extract_all(p,
             'seat \d+ raised \d+ on an ante of \d+: the raise is \d+ x the ante')))) AS t(x)
    WHERE r.evaluated
      AND list_contains(r.problem_kinds, 'rule_irregularity')
), pairs AS (  -- those seats' ante and raise as recorded
    SELECT w.casino, w.table_id, w.round_id, w.seat, any_value(n.multiple) AS multiple,
           max(w.amount_cents) FILTER (WHERE w.wager = 'ante') AS ante,
           max(w.amount_cents) FILTER (WHERE w.wager = 'raise') AS raised
    FROM wagers AS w
    JOIN noted AS n USING (casino, table_id, round_id, seat)
    WHERE w.wager IN ('ante', 'raise')
    GROUP BY w.casino, w.table_id, w.round_id, w.seat
    HAVING count(*) FILTER (WHERE w.wager = 'raise') > 0
)
SELECT
    casino,
    round_id,
    table_id,
    seat,
    'raise' AS wager,
    NULL::BIGINT AS recorded_cents,
    NULL::BIGINT AS expected_cents,
    'seat ' || seat || ' raised ' || raised || ' on an ante of ' || ante
        || ': the raise is ' || multiple || ' x the ante ('
        || CAST(ante AS HUGEINT) * multiple || '), off by '
        || abs(CAST(raised AS HUGEINT) - CAST(ante AS HUGEINT) * multiple)
        || ' (cents); settled on the amount recorded' AS detail
FROM pairs
ORDER BY casino, table_id, round_id, seat
