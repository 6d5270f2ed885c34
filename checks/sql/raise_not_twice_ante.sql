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
WITH pairs AS (  -- each Caribbean stud seat's ante and raise, one row a seat
    SELECT w.casino, w.table_id, w.round_id, w.seat,
           max(w.amount_cents) FILTER (WHERE w.wager = 'ante') AS ante,
           max(w.amount_cents) FILTER (WHERE w.wager = 'raise') AS raised
    FROM wagers AS w
    ANTI JOIN unjudged AS u USING (casino, table_id, round_id)
    WHERE w.wager IN ('ante', 'raise')
      AND w.seat IS NOT NULL
    GROUP BY w.casino, w.table_id, w.round_id, w.seat
    HAVING count(*) FILTER (WHERE w.wager = 'raise') > 0
       AND CAST(max(w.amount_cents) FILTER (WHERE w.wager = 'raise') AS HUGEINT)
           <> CAST(max(w.amount_cents) FILTER (WHERE w.wager = 'ante') AS HUGEINT)
              * $raise_ante_multiple
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
        || ': the raise is ' || $raise_ante_multiple || ' x the ante ('
        || CAST(ante AS HUGEINT) * $raise_ante_multiple || '), off by '
        || abs(CAST(raised AS HUGEINT) - CAST(ante AS HUGEINT) * $raise_ante_multiple)
        || ' (cents); settled on the amount recorded' AS detail
FROM pairs
ORDER BY casino, table_id, round_id, seat
