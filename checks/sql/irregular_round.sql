-- id: irregular_round
-- title: Irregular round: the record of a judged round holds events that do not fit and that no other check names (a setting changed after exposure, a wager placed or settled twice, a decision repeated, events after the end, a progressive wager other than the posted amount ...)
-- severity: high
-- rule: docs/rules.md 8.1, 8.2, 8.5, 8.6, 6a.12 (irregularities of the record are reported beside the judgement, all at once; every round accounted for, from its start to its end)
-- next: read the round's reconstruction and its problems; pull the video at the time shown and have the floorperson document the irregularity
-- catches: none
-- Offending rows: every judged round with at least one problem that no other check names.
-- The problem kinds with their own checks are left to them: past_posting (wager_after_deal),
-- dealt_twice (card_dealt_twice), not_ended (round_not_ended), void_without_reason
-- (void_without_reason), settled_not_placed (settled_not_placed), meter_changed
-- (meter_unexplained), hand_changed_after_banker_exposed (hand_changed_after_banker_exposed,
-- which reads the HandChanged from the timeline, in the rounds recorded under schema id 3:
-- a round that mixes schema ids is judged at its smallest, and is flagged here).
-- rule_irregularity is the rules engine's, for several things: a
-- Caribbean stud raise not twice the ante has its own check (raise_not_twice_ante), so the
-- kind is flagged here only when one of the round's problems (one element of
-- rounds.problems each, which says no kind of its own) holds another sentence than those
-- the checks above name (what no pattern below reads is kept, fail closed). A round with
-- problems and no kinds (an older replay's output) is flagged. Rounds not judged are not_evaluated's. The detail names the
-- kinds flagged here, then every problem of the round.
WITH judged AS (
    SELECT r.*,
           list_filter(coalesce(r.problem_kinds, []),
                       lambda k: k NOT IN ('past_posting', 'dealt_twice', 'not_ended',
                                           'void_without_reason', 'settled_not_placed',
                                           'meter_changed', 'rule_irregularity')
                                 AND NOT (k = 'hand_changed_after_banker_exposed'
                                          AND coalesce(r.vocabulary >= 3, false)))
               AS other_kinds,
           -- what is left of each problem once the sentences other checks name are taken out
           list_transform(coalesce(r.problems, []), lambda p: regexp_replace(p,
               '(?:dealer|seat \d+) placed \S+ -?\d+ after the cards were dealt \(table_seq \d+\): past-posting'
               || '|(?:dealer|seat \d+) dealt (?:cards|tiles) twice \(table_seq \d+\)'
               || '|the round has no RoundEnded in the log \(last event at table_seq \d+\): its end was lost, or it was still being dealt when the log was read'
               || '|round voided without a reason \(table_seq \d+\)'
               || '|(?:dealer|seat \d+) \S+ settled but never placed \(table_seq \d+\)'
               || '|progressive meter read -?\d+ after -?\d+ in the same round \(table_seq \d+\); the last reading counts'
               || '|seat \d+ raised -?\d+ on an ante of -?\d+: the raise is -?\d+ x the ante \(-?\d+\); settled on the -?\d+ recorded \(docs/rules\.md 6a\.17\)',
               '', 'g')) AS unexplained
    FROM round_problems AS r
    WHERE r.evaluated
      AND (len(r.problems) > 0 OR len(r.problem_kinds) > 0)
), irregular AS (
    SELECT *,
           list_sort(list_concat(other_kinds,
               CASE WHEN list_contains(problem_kinds, 'rule_irregularity')
                         AND len(list_filter(unexplained,
                                             lambda rest: regexp_matches(rest, '[^;\s]'))) > 0
                    THEN ['rule_irregularity'] ELSE [] END)) AS left_kinds
    FROM judged
)
SELECT
    casino,
    round_id,
    table_id,
    NULL::INTEGER AS seat,
    CASE WHEN len(left_kinds) > 0 THEN array_to_string(left_kinds, ', ') || ': ' ELSE '' END
        || coalesce(nullif(array_to_string(problems, '; '), ''), 'no detail recorded') AS detail
FROM irregular
WHERE len(left_kinds) > 0
   OR (len(problems) > 0 AND len(coalesce(problem_kinds, [])) = 0)
ORDER BY casino, table_id, round_id
