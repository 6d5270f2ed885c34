-- id: tiles_dealer_set_before_players
-- title: Pai gow tiles: the dealer turned over or set the dealer's tiles before every player had set
-- severity: high
-- rule: PR pai gow tiles ¶ C (after all the players have set their hands and placed their tiles on the table, the dealer's four tiles are turned over and the dealer sets them)
-- next: pull the video of the round: a player who set after the dealer's tiles were turned over set knowing the dealer's hand; the wager was settled on a hand set out of turn: report it to the shift manager and log it against the dealer
-- catches: none
-- Facts: the order of events within the round (the timeline, by table_seq; occurred_at is
-- shown, never used to order). The dealer counts from its first HandSet or HandsExposed,
-- whichever comes first (the tiles turned over); each player (a player banker included)
-- from its last HandSet. Offending rows: one per seat with a HandSet after that, naming
-- both. Players set in any order among themselves and may set again before the dealer's
-- tiles are turned; a withdrawal (after the dealer set, ¶ F) and events at the same instant
-- pass; a corrected event stands at the place of the one it corrects (the view play). A
-- round without the dealer's HandSet or HandsExposed is not judged here (sequence_gap and
-- not_evaluated say it).
-- Reads marked_play (checks/sql/_views/60_marked_play.sql), not play: the events of the
-- rounds checks/sql/_views/50_play_marks.sql marks, where every row of this check is,
-- so that the seven checks of the order of play do not each scan the timeline.
WITH ev AS (
    SELECT casino, table_id, round_id, seat, position, event, table_seq, occurred_at
    FROM marked_play
    WHERE game = 'pai_gow_tiles' AND event IN ('hand set', 'hands exposed')
), dealer AS (
    SELECT casino, table_id, round_id, min(table_seq) AS seq,
           arg_min(event, table_seq) AS what
    FROM ev
    WHERE position = 'dealer'
    GROUP BY casino, table_id, round_id
), player AS (
    SELECT casino, table_id, round_id, seat, max(table_seq) AS seq,
           arg_max(occurred_at, table_seq) AS at
    FROM ev
    WHERE event = 'hand set' AND seat IS NOT NULL
    GROUP BY casino, table_id, round_id, seat
)
SELECT
    p.casino,
    p.table_id,
    p.round_id,
    p.seat,
    'seat ' || p.seat || ' set its hands (table_seq ' || p.seq || ', '
        || strftime(p.at, '%Y-%m-%dT%H:%M:%S.%fZ') || ') after the dealer''s tiles were '
        || CASE d.what WHEN 'hand set' THEN 'set' ELSE 'turned over' END
        || ' (table_seq ' || d.seq || ')' AS detail
FROM player AS p
JOIN dealer AS d USING (casino, table_id, round_id)
WHERE p.seq > d.seq
ORDER BY p.casino, p.table_id, p.round_id, p.seat
