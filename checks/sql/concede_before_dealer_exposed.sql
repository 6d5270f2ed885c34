-- id: concede_before_dealer_exposed
-- title: Caribbean stud: a hand conceded before the dealer's hand was exposed
-- severity: medium
-- rule: Caribbean stud rule 9.7 (after the dealer's hand is exposed a player may concede his/her hand; the dealer then collects the player's wagers and cards)
-- next: pull the video of the round: a concede recorded before the dealer's hand was turned over is a fold (the player declined to raise) recorded under the wrong word, or a hand taken in before its time; have the device record a fold as a fold, and check the ante and any raise were settled as the player's decision requires
-- catches: none
-- Facts: the order of events within the round (the timeline, by table_seq; occurred_at is
-- shown, never used to order). Rule 9.7 permits a concede only after the dealer's hand is
-- exposed; a fold (declining to raise, before the dealer's hand is exposed) is not a
-- concede and is not judged here. Offending rows: one per seat whose PlayerActed concede
-- comes before the dealer's first HandsExposed. A concede after it, however late, and
-- events at the same instant pass; a corrected event stands at the place of the one it
-- corrects (the view play). A round without the dealer's HandsExposed is not judged here
-- (the missing event is for sequence_gap and not_evaluated).
-- Reads marked_play (checks/sql/_views/60_marked_play.sql), not play: the events of the
-- rounds checks/sql/_views/50_play_marks.sql marks, where every row of this check is,
-- so that the seven checks of the order of play do not each scan the timeline.
WITH conceded AS (
    SELECT casino, table_id, round_id, seat, table_seq, occurred_at
    FROM marked_play
    WHERE game = 'caribbean_stud' AND event = 'player acted' AND action = 'concede'
), exposed AS (
    -- only the rounds with a concede: the dealer's exposure of every other round is not read
    SELECT casino, table_id, round_id, min(table_seq) AS exposed_seq
    FROM marked_play
    SEMI JOIN conceded USING (casino, table_id, round_id)
    WHERE game = 'caribbean_stud' AND event = 'hands exposed' AND position = 'dealer'
    GROUP BY casino, table_id, round_id
)
SELECT
    c.casino,
    c.table_id,
    c.round_id,
    c.seat,
    'seat ' || c.seat || ' conceded (table_seq ' || c.table_seq || ', '
        || strftime(c.occurred_at, '%Y-%m-%dT%H:%M:%S.%fZ') || ') before the dealer''s hand '
        || 'was exposed (table_seq ' || x.exposed_seq || ')' AS detail
FROM conceded AS c
JOIN exposed AS x USING (casino, table_id, round_id)
WHERE c.table_seq < x.exposed_seq
ORDER BY c.casino, c.table_id, c.round_id, c.seat, c.table_seq
