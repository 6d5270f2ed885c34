-- id: face_up_set_before_dealer
-- title: Face Up: a player set a hand before the dealer's hands were set
-- severity: medium
-- rule: 58 Pa. Code § 688a.7(b) (only after the dealer's high hand and low hand have been set does each player examine and set his cards)
-- next: pull the video of the round: if the player set before the dealer's hands were set (or the device recorded the dealer's setting late), have the dealer set first from now on and log it against the dealer; the wagers stand as judged
-- catches: none
-- Facts: the order of events within the round (the timeline, by table_seq).
-- Offending rows: one per seat whose first HandSet comes before the dealer's first HandSet
-- in the table's order (table_seq; occurred_at is shown, never used to order: two events at
-- the same instant are in the order the table numbered them). Players set in any order
-- among themselves, and a seat may set again; a corrected event stands at the place of the
-- event it corrects (the view play). A round without the dealer's HandSet is not judged
-- here (the missing event is for sequence_gap, not_evaluated and the fold's problems).
-- Reads marked_play (checks/sql/_views/60_marked_play.sql), not play: the events of the
-- rounds checks/sql/_views/50_play_marks.sql marks, where every row of this check is,
-- so that the seven checks of the order of play do not each scan the timeline.
WITH sets AS (
    SELECT casino, table_id, round_id, seat, position, table_seq, occurred_at
    FROM marked_play
    WHERE game = 'face_up_pai_gow' AND event = 'hand set'
), dealer AS (
    SELECT casino, table_id, round_id, min(table_seq) AS dealer_seq
    FROM sets
    WHERE position = 'dealer'
    GROUP BY casino, table_id, round_id
), first_set AS (
    SELECT casino, table_id, round_id, seat,
           arg_min(table_seq, table_seq) AS seq, arg_min(occurred_at, table_seq) AS at
    FROM sets
    WHERE seat IS NOT NULL
    GROUP BY casino, table_id, round_id, seat
)
SELECT
    f.casino,
    f.table_id,
    f.round_id,
    f.seat,
    'seat ' || f.seat || ' set its hands (table_seq ' || f.seq || ', '
        || strftime(f.at, '%Y-%m-%dT%H:%M:%S.%fZ') || ') before the dealer''s hands were set '
        || '(table_seq ' || d.dealer_seq || ')' AS detail
FROM first_set AS f
JOIN dealer AS d USING (casino, table_id, round_id)
WHERE f.seq < d.dealer_seq
ORDER BY f.casino, f.table_id, f.round_id, f.seat
