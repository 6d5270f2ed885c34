-- id: raise_not_twice_ante
-- title: Caribbean stud raise that is not exactly twice the ante
-- severity: medium
-- params: raise_ante_multiple=2
-- rule: the player folds or raises exactly twice the ante: docs/rules.md 4.2, 6 (Caribbean stud), 6a.17 (the raise is settled on the amount recorded, and flagged separately)
-- next: pull the round's video at the time shown and count the raise on the layout; if the table accepted a raise of the wrong size, correct the dealer's procedure and review the seat's other rounds (a raise sized after seeing the dealer's hand is past-posting)
-- Offending rows: every seat of a judged round holding both an ante and a raise whose raise
-- is not raise_ante_multiple times its ante (the shipped Caribbean stud ruleset's option
-- raise_ante_multiple is 2; override with --param raise_ante_multiple=N for a ruleset that
-- posts another multiple). Not a money flag: the raise is settled on the amount recorded
-- (6a.17), so nothing was paid wrongly; the detail gives the raise and twice the ante. A
-- seat that folded has no raise and is not concerned.
SELECT
    a.casino,
    a.round_id,
    a.table_id,
    a.seat,
    x.wager,
    NULL::BIGINT AS recorded_cents,
    NULL::BIGINT AS expected_cents,
    'seat ' || a.seat || ' raised ' || x.amount_cents || ' on an ante of ' || a.amount_cents
        || ': the raise is ' || $raise_ante_multiple || ' x the ante ('
        || CAST(a.amount_cents AS HUGEINT) * $raise_ante_multiple || '), off by '
        || abs(CAST(x.amount_cents AS HUGEINT) - CAST(a.amount_cents AS HUGEINT) * $raise_ante_multiple)
        || ' (cents); settled on the amount recorded' AS detail
FROM wagers AS a
JOIN wagers AS x
  ON x.casino = a.casino AND x.table_id = a.table_id AND x.round_id = a.round_id
 AND x.seat = a.seat AND x.wager = 'raise'
JOIN rounds AS r
  ON r.casino = a.casino AND r.table_id = a.table_id AND r.round_id = a.round_id
WHERE r.evaluated
  AND a.wager = 'ante'
  AND a.seat IS NOT NULL
  AND CAST(x.amount_cents AS HUGEINT) <> CAST(a.amount_cents AS HUGEINT) * $raise_ante_multiple
ORDER BY a.casino, a.table_id, a.round_id, a.seat
