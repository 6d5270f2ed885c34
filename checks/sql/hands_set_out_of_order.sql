-- id: hands_set_out_of_order
-- title: Pai gow poker: the player banker set before a player, or the dealer turned over and set before a player or the player banker
-- severity: medium
-- rule: pai gow poker procedure (3) (the player banker sets after the players), (4) (the dealer's hand is then exposed and set) and (12) (after all the players have arranged their hands, the dealer turns over and arranges his or her cards)
-- next: pull the video of the round: a player banker who set before a player, or a dealer who turned over before everyone had set, let a hand be set with knowledge of another; have the table supervisor watch the table's order of play and log it against the dealer
-- catches: none
-- Facts: the order of events within the round (the timeline, by table_seq; occurred_at is
-- shown, never used to order), in classic pai gow poker. Each player counts from its first
-- HandSet (players set in any order among themselves, and a player may set again until the
-- player banker's hand is shown: procedure (6)); the player banker from its last (the
-- setting that stands); the dealer from its first HandSet or HandsExposed, whichever comes
-- first (procedure (9) lets the dealer change an exposed hand afterwards). Offending rows:
-- the player banker's seat when it set before a player (naming the player), and when the
-- dealer turned over or set before it; each player's seat that set after the dealer turned
-- over or set. Events at the same instant pass; a corrected event stands at the place of
-- the one it corrects (the view play). A round missing the HandSet or HandsExposed these
-- need is not judged for that part (sequence_gap and not_evaluated say it).
-- Reads marked_play (checks/sql/_views/60_marked_play.sql), not play: the events of the
-- rounds checks/sql/_views/50_play_marks.sql marks, where every row of this check is,
-- so that the seven checks of the order of play do not each scan the timeline.
WITH ev AS (
    SELECT casino, table_id, round_id, seat, position, event, table_seq, occurred_at
    FROM marked_play
    WHERE game = 'pai_gow_poker' AND event IN ('hand set', 'hands exposed')
), player AS (
    SELECT casino, table_id, round_id, seat, min(table_seq) AS seq,
           arg_min(occurred_at, table_seq) AS at
    FROM ev
    WHERE event = 'hand set' AND position LIKE 'seat %'
    GROUP BY casino, table_id, round_id, seat
), banker AS (
    SELECT casino, table_id, round_id, seat, max(table_seq) AS seq,
           arg_max(occurred_at, table_seq) AS at
    FROM ev
    WHERE event = 'hand set' AND position = 'banker'
    GROUP BY casino, table_id, round_id, seat
), dealer AS (
    SELECT casino, table_id, round_id, min(table_seq) AS seq,
           arg_min(event, table_seq) AS what
    FROM ev
    WHERE position = 'dealer'
    GROUP BY casino, table_id, round_id
), found AS (
    SELECT b.casino, b.table_id, b.round_id, b.seat, b.seq AS at_seq,
           'the player banker (seat ' || b.seat || ') set its hand (table_seq ' || b.seq || ', '
               || strftime(b.at, '%Y-%m-%dT%H:%M:%S.%fZ') || ') before seat ' || p.seat
               || ' set its hands (table_seq ' || p.seq || '): procedure (3)' AS detail
    FROM banker AS b
    JOIN player AS p
      ON p.casino = b.casino AND p.table_id = b.table_id AND p.round_id = b.round_id
     AND p.seq > b.seq
    UNION ALL
    SELECT b.casino, b.table_id, b.round_id, b.seat, b.seq,
           'the dealer''s hand was ' || CASE d.what WHEN 'hand set' THEN 'set'
               ELSE 'exposed' END || ' (table_seq ' || d.seq || ') before the player banker '
               || '(seat ' || b.seat || ') set its hand (table_seq ' || b.seq || ', '
               || strftime(b.at, '%Y-%m-%dT%H:%M:%S.%fZ') || '): procedure (3), (4)'
    FROM banker AS b
    JOIN dealer AS d USING (casino, table_id, round_id)
    WHERE d.seq < b.seq
    UNION ALL
    SELECT p.casino, p.table_id, p.round_id, p.seat, p.seq,
           'the dealer''s hand was ' || CASE d.what WHEN 'hand set' THEN 'set'
               ELSE 'exposed' END || ' (table_seq ' || d.seq || ') before seat ' || p.seat
               || ' set its hands (table_seq ' || p.seq || ', '
               || strftime(p.at, '%Y-%m-%dT%H:%M:%S.%fZ') || '): procedure (12)'
    FROM player AS p
    JOIN dealer AS d USING (casino, table_id, round_id)
    WHERE d.seq < p.seq
)
SELECT casino, table_id, round_id, seat, detail
FROM found
ORDER BY casino, table_id, round_id, seat, at_seq, detail
