-- tiles_out_of_turn: in pai gow tiles, each player shown (step 'shown', PR pai gow tiles
-- ¶ G) or paid (step 'paid', ¶ J) after a seat whose turn comes after it from the dealer's
-- far right, right to left (dealer_after, dealer_after_seq: the first such seat), when the
-- round is out of turn under every lawful reading: a player-banked round also passes in
-- turn from the player banker's right (banker_turn, banker_seat; docs/rules.md 6a.21).
-- Rounds whose layout does not place every seat (or the banker's) are left out: the report
-- checks/reports/seat_order_unjudged.sql lists them. tiles_exposed_out_of_order and
-- tiles_winners_paid_out_of_order read it, one step each.
WITH placed AS (
    SELECT * FROM seat_turns WHERE game = 'pai_gow_tiles' AND step IN ('shown', 'paid')
), rounds_judged AS (
    SELECT casino, table_id, round_id, step, count(*) AS players,
           min(CASE WHEN pos IS NULL THEN seat END) AS unknown_seat,
           bool_or(banker_seat IS NOT NULL AND banker_pos IS NULL) AS unknown_banker,
           any_value(banker_seat) AS banker_seat
    FROM placed
    GROUP BY casino, table_id, round_id, step
), turns AS (
    -- each seat's turn under the dealer's reading (from the dealer's far right) and, when a
    -- player banks, under the banker's (from the seat after the banker's, wrapping round)
    SELECT p.*, p.pos AS dealer_turn,
           CASE WHEN p.banker_pos IS NOT NULL THEN (p.pos - p.banker_pos + p.n) % p.n END
               AS banker_turn
    FROM placed AS p
    JOIN rounds_judged AS j USING (casino, table_id, round_id, step)
    WHERE j.unknown_seat IS NULL AND NOT j.unknown_banker
), late AS (
    -- a seat shown (or paid) after one whose turn comes after it, under each reading
    SELECT a.casino, a.table_id, a.round_id, a.step, a.seat, a.seq, a.at,
           arg_min(b.seat, b.seq) FILTER (WHERE b.dealer_turn > a.dealer_turn) AS dealer_after,
           min(b.seq) FILTER (WHERE b.dealer_turn > a.dealer_turn) AS dealer_after_seq,
           bool_or(b.banker_turn > a.banker_turn) AS banker_late
    FROM turns AS a
    JOIN turns AS b
      ON b.casino = a.casino AND b.table_id = a.table_id AND b.round_id = a.round_id
     AND b.step = a.step AND b.seq < a.seq
    GROUP BY a.casino, a.table_id, a.round_id, a.step, a.seat, a.seq, a.at
), banker_bad AS (
    SELECT casino, table_id, round_id, step, bool_or(banker_late) AS any_late
    FROM late
    GROUP BY casino, table_id, round_id, step
)
SELECT l.casino, l.table_id, l.round_id, l.step, l.seat, l.seq, l.at, l.dealer_after,
       l.dealer_after_seq, t.banker_turn, t.banker_seat
FROM late AS l
JOIN turns AS t USING (casino, table_id, round_id, step, seat)
LEFT JOIN banker_bad AS b USING (casino, table_id, round_id, step)
WHERE l.dealer_after IS NOT NULL
  AND (t.banker_turn IS NULL OR coalesce(b.any_late, false))
