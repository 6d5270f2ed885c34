-- id: tiles_exposed_out_of_order
-- title: Pai gow tiles: a player's hands shown out of turn (not from the dealer's far right, right to left around the table)
-- severity: medium
-- rule: PR pai gow tiles ¶ G (the dealer shows both hands of each player starting with the player at the dealer's far right and continuing right to left around the table)
-- next: pull the video of the showing: hands shown out of turn are how a dealer gets to see a later hand before deciding an earlier one (or to cover a switched tile); confirm the table layout filed for the table is the one in use, retrain the dealer, and watch the table
-- catches: tiles_exposed_out_of_order
-- Facts: the order of events within the round (the view play, by table_seq: a corrected
-- event stands at the place of the one it corrects; occurred_at is shown, never used to
-- order, so events at the same instant pass) and the table's seat order
-- (rounds.seat_order: the seats from the dealer's far right, right to left, by the layout
-- the casino filed for the table in force when the round was dealt, docs/rulesets.md
-- "Table layouts"; the convention is docs/rules.md 6a.21). The sequence is each player's
-- first HandsExposed; a seat that withdrew or was never shown is skipped, and the player
-- banker's and the dealer's own exposures are not part of it. When a player banks, ¶ G
-- says nothing of the banker, and pai gow poker procedure (7) starts from the player
-- banker's right: both readings are lawful (6a.21), so the round is flagged only when the
-- showing follows neither. Offending rows: one per seat shown after a seat that comes
-- after it in the order, naming the first such seat. Not evaluated (neither flagged nor
-- passed; the report checks/reports/seat_order_unjudged.sql lists each round with why): a
-- round with two or more players shown and no layout filed for the table in force when it
-- was dealt (seat_order null: "no table layout filed"), or whose layout does not list a
-- seat shown (or the player banker's seat): a layout that does not know a seat cannot
-- place it. One player has no order to judge.
-- Reads seat_turns (checks/sql/_views/90_seat_turns.sql): the three checks of the order
-- around the table share its one pass over the view play.
WITH placed AS (
    SELECT * FROM seat_turns WHERE game = 'pai_gow_tiles' AND step = 'shown'
), rounds_judged AS (
    SELECT casino, table_id, round_id, count(*) AS players,
           min(CASE WHEN pos IS NULL THEN seat END) AS unknown_seat,
           bool_or(banker_seat IS NOT NULL AND banker_pos IS NULL) AS unknown_banker,
           any_value(banker_seat) AS banker_seat
    FROM placed
    GROUP BY casino, table_id, round_id
), turns AS (
    -- each seat's turn under the dealer's reading (from the dealer's far right) and, when a
    -- player banks, under the banker's (from the seat after the banker's, wrapping round)
    SELECT p.*, p.pos AS dealer_turn,
           CASE WHEN p.banker_pos IS NOT NULL THEN (p.pos - p.banker_pos + p.n) % p.n END
               AS banker_turn
    FROM placed AS p
    JOIN rounds_judged AS j USING (casino, table_id, round_id)
    WHERE j.unknown_seat IS NULL AND NOT j.unknown_banker
), late AS (
    -- a seat shown after one whose turn comes after it, under each reading
    SELECT a.casino, a.table_id, a.round_id, a.seat, a.seq, a.at,
           arg_min(b.seat, b.seq) FILTER (WHERE b.dealer_turn > a.dealer_turn) AS dealer_after,
           min(b.seq) FILTER (WHERE b.dealer_turn > a.dealer_turn) AS dealer_after_seq,
           bool_or(b.banker_turn > a.banker_turn) AS banker_late
    FROM turns AS a
    JOIN turns AS b
      ON b.casino = a.casino AND b.table_id = a.table_id AND b.round_id = a.round_id
     AND b.seq < a.seq
    GROUP BY a.casino, a.table_id, a.round_id, a.seat, a.seq, a.at
), banker_bad AS (
    SELECT casino, table_id, round_id, bool_or(banker_late) AS any_late
    FROM late
    GROUP BY casino, table_id, round_id
)
SELECT
    l.casino,
    l.table_id,
    l.round_id,
    l.seat,
    'seat ' || l.seat || '''s hands were shown (table_seq ' || l.seq || ', '
        || strftime(l.at, '%Y-%m-%dT%H:%M:%S.%fZ') || ') after seat ' || l.dealer_after
        || '''s (table_seq ' || l.dealer_after_seq || '), which comes after it from the '
        || 'dealer''s far right, right to left (seat order '
        || array_to_string(o.seat_order, ' ') || ')'
        || CASE WHEN t.banker_turn IS NOT NULL
                THEN '; nor were they in turn from the player banker''s right (seat '
                     || t.banker_seat || ' banks)' ELSE '' END AS detail
FROM late AS l
JOIN turns AS t USING (casino, table_id, round_id, seat)
JOIN rounds AS o USING (casino, table_id, round_id)
LEFT JOIN banker_bad AS b USING (casino, table_id, round_id)
WHERE l.dealer_after IS NOT NULL
  AND (t.banker_turn IS NULL OR coalesce(b.any_late, false))
ORDER BY casino, table_id, round_id, seat
