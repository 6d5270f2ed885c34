-- id: tiles_withdrawal_out_of_order
-- title: Pai gow tiles: a withdrawal before the dealer had set, or after the seat's hands were shown
-- severity: medium
-- rule: PR pai gow tiles ¶ F (a player may withdraw the wager after the dealer has set the dealer's hands, and must announce it before the dealer has shown either of that player's hands)
-- next: pull the video of the round: a withdrawal before the dealer set is a player leaving before the dealer's hand is known (the wager should have been played), one after the hands were shown is a loss taken back; settle the wager as the rule requires and log it against the dealer
-- catches: none
-- Facts: the order of events within the round (the timeline, by table_seq; occurred_at is
-- shown, never used to order). Offending rows: one per seat whose PlayerActed withdraw
-- comes before the dealer's first HandSet, or after that seat's first HandsExposed. A
-- withdrawal between the two, whatever the order of the other seats' events, and events at
-- the same instant pass; a corrected event stands at the place of the one it corrects (the
-- view play). A part whose event is missing (no HandSet of the dealer; the seat's hands
-- never shown, as a withdrawn seat's are not) is not judged for that part.
-- Reads marked_play (checks/sql/_views/60_marked_play.sql), not play: the events of the
-- rounds checks/sql/_views/50_play_marks.sql marks, where every row of this check is,
-- so that the seven checks of the order of play do not each scan the timeline.
WITH withdrew AS (
    SELECT casino, table_id, round_id, seat, table_seq AS seq, occurred_at AS at
    FROM marked_play
    WHERE game = 'pai_gow_tiles' AND event = 'player acted' AND action = 'withdraw'
), ev AS (
    -- only the rounds with a withdrawal: the settings of every other round are not read
    SELECT casino, table_id, round_id, seat, position, event, table_seq
    FROM marked_play
    SEMI JOIN withdrew USING (casino, table_id, round_id)
    WHERE game = 'pai_gow_tiles' AND event IN ('hand set', 'hands exposed')
), dealer_set AS (
    SELECT casino, table_id, round_id, min(table_seq) AS seq
    FROM ev
    WHERE event = 'hand set' AND position = 'dealer'
    GROUP BY casino, table_id, round_id
), shown AS (
    SELECT casino, table_id, round_id, seat, min(table_seq) AS seq
    FROM ev
    WHERE event = 'hands exposed' AND seat IS NOT NULL
    GROUP BY casino, table_id, round_id, seat
)
SELECT
    w.casino,
    w.table_id,
    w.round_id,
    w.seat,
    'seat ' || w.seat || ' withdrew (table_seq ' || w.seq || ', '
        || strftime(w.at, '%Y-%m-%dT%H:%M:%S.%fZ') || ') '
        || CASE WHEN w.seq < d.seq
                THEN 'before the dealer set the dealer''s hands (table_seq ' || d.seq || ')'
                ELSE 'after its hands were shown (table_seq ' || s.seq || ')' END AS detail
FROM withdrew AS w
LEFT JOIN dealer_set AS d USING (casino, table_id, round_id)
LEFT JOIN shown AS s USING (casino, table_id, round_id, seat)
WHERE w.seq < d.seq OR w.seq > s.seq
ORDER BY w.casino, w.table_id, w.round_id, w.seat, w.seq
