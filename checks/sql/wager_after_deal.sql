-- id: wager_after_deal
-- title: Wager placed after the cards or tiles were dealt (past-posting)
-- severity: high
-- rule: 58 Pa. Code § 688a.7(h)(3) (a Progressive Payout Wager is placed before any card is dealt); docs/rules.md 2.1, 8.3 (a wager placed after the first cards or tiles were dealt is past-posting, the Caribbean stud raise excepted: docs/rules.md 4.2)
-- next: pull the video at the time of the wager: if it was placed after the deal, void the late wager (return it, recover any payment on it), log it against the dealer and report the patron to surveillance
-- catches: past_posting
-- Offending rows: one per past-posted wager (replay's fold, problem kind past_posting), with
-- the seat and the wager the fold names, judged round or not. When the fold's words cannot be
-- read (a newer wording), the round is flagged once without a seat rather than not at all.
-- Each of the round's problems (one element of rounds.problems) is read on its own.
WITH late AS (
    SELECT r.casino, r.table_id, r.round_id,
           flatten(list_transform(coalesce(r.problems, []), lambda p: regexp_extract_all(p,
               '(?:dealer|seat \d+) placed \S+ -?\d+ after the '
               || 'cards were dealt \(table_seq \d+\): past-posting'))) AS said,
           array_to_string(r.problems, '; ') AS problems
    FROM round_problems AS r
    WHERE list_contains(r.problem_kinds, 'past_posting')
), each AS (
    SELECT casino, table_id, round_id, unnest(said) AS said
    FROM late
)
SELECT
    casino,
    round_id,
    table_id,
    TRY_CAST(regexp_extract(said, '^seat (\d+) ', 1) AS INTEGER) AS seat,
    regexp_extract(said, ' placed (\S+) ', 1) AS wager,
    said AS detail
FROM each
UNION ALL
SELECT casino, round_id, table_id, NULL::INTEGER, NULL, coalesce(nullif(problems, ''), 'past-posting')
FROM late
WHERE len(said) = 0
ORDER BY casino, table_id, round_id, seat NULLS FIRST, wager, detail
