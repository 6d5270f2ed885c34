-- id: players_exposed_out_of_order
-- title: Pai gow poker: a player's hand exposed out of turn (not from the player banker's right side, or the dealer's own right side when the dealer banks)
-- severity: medium
-- rule: pai gow poker procedure (7) (the dealer exposes the remaining players' hands from the player banker's right side or, if the dealer is the banker, from his or her own right side)
-- next: pull the video of the exposures: hands exposed out of turn are how a dealer sees a later hand before acting on an earlier one (or covers a changed setting); confirm the table layout filed for the table is the one in use, retrain the dealer, and watch the table
-- catches: players_exposed_out_of_order
-- Facts: the order of events within the round (the view play, by table_seq: a corrected
-- event stands at the place of the one it corrects; occurred_at is shown, never used to
-- order, so events at the same instant pass) and the table's seat order
-- (rounds.seat_order: the seats from the dealer's far right, right to left, by the layout
-- the casino filed for the table in force when the round was dealt, docs/rulesets.md
-- "Table layouts"). The convention (docs/rules.md 6a.21): the dealer faces the players, so
-- the dealer's own right side starts the seat order; a player banker faces the dealer, so
-- the banker's right side is the seats after the banker's in the seat order, wrapping
-- round to the first. The sequence is each remaining player's first HandsExposed (classic
-- pai gow poker; Face Up has no player banker and its own order, § 688a.7(b)); the player
-- banker's and the dealer's exposures are not part of it (when they come is
-- hands_set_out_of_order's and the banker checks' to say). Offending rows: one per seat
-- exposed after a seat that comes after it in the order, naming the first such seat. Not
-- evaluated (neither flagged nor passed; the report checks/reports/seat_order_unjudged.sql
-- lists each round with why): a round with two or more players exposed and no layout filed
-- for the table in force when it was dealt (seat_order null: "no table layout filed"), or
-- whose layout does not list a seat exposed (or the player banker's seat): a layout that
-- does not know a seat cannot place it. One player has no order to judge.
WITH placed AS (
    SELECT * FROM seat_turns WHERE game = 'pai_gow_poker' AND step = 'shown'
), rounds_judged AS (
    SELECT casino, table_id, round_id, count(*) AS players,
           min(CASE WHEN pos IS NULL THEN seat END) AS unknown_seat,
           bool_or(banker_seat IS NOT NULL AND banker_pos IS NULL) AS unknown_banker,
           any_value(banker_seat) AS banker_seat
    FROM placed
    GROUP BY casino, table_id, round_id
), turns AS (
    -- each seat's turn: from the player banker's right (the seats after the banker's in the
    -- seat order, wrapping round), or from the dealer's own right (the order from its start)
    SELECT p.*,
           CASE WHEN p.banker_pos IS NOT NULL THEN (p.pos - p.banker_pos + p.n) % p.n
                ELSE p.pos END AS turn
    FROM placed AS p
    JOIN rounds_judged AS j USING (casino, table_id, round_id)
    WHERE j.unknown_seat IS NULL AND NOT j.unknown_banker
), late AS (
    -- a seat exposed after one whose turn comes after it
    SELECT a.casino, a.table_id, a.round_id, a.seat, a.seq, a.at,
           arg_min(b.seat, b.seq) FILTER (WHERE b.turn > a.turn) AS after,
           min(b.seq) FILTER (WHERE b.turn > a.turn) AS after_seq
    FROM turns AS a
    JOIN turns AS b
      ON b.casino = a.casino AND b.table_id = a.table_id AND b.round_id = a.round_id
     AND b.seq < a.seq
    GROUP BY a.casino, a.table_id, a.round_id, a.seat, a.seq, a.at
)
SELECT
    l.casino,
    l.table_id,
    l.round_id,
    l.seat,
    'seat ' || l.seat || '''s hand was exposed (table_seq ' || l.seq || ', '
        || strftime(l.at, '%Y-%m-%dT%H:%M:%S.%fZ') || ') after seat ' || l.after
        || '''s (table_seq ' || l.after_seq || '), which comes after it from the '
        || CASE WHEN t.banker_seat IS NOT NULL
                THEN 'player banker''s right (seat ' || t.banker_seat || ' banks)'
                ELSE 'dealer''s own right' END
        || ' (seat order from the dealer''s far right ' || array_to_string(o.seat_order, ' ')
        || ')' AS detail
FROM late AS l
JOIN turns AS t USING (casino, table_id, round_id, seat)
JOIN rounds AS o USING (casino, table_id, round_id)
WHERE l.after IS NOT NULL
ORDER BY casino, table_id, round_id, seat
