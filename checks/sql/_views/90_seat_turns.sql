-- seat_turns: the events the three checks of the order around the table compare
-- (tiles_exposed_out_of_order, tiles_winners_paid_out_of_order,
-- players_exposed_out_of_order), by one pass over the view play for the three: per round
-- whose table layout is known (rounds.seat_order not null) and per player, the first
-- HandsExposed of a pai gow tiles or classic pai gow poker player (step 'shown': the
-- player banker's and the dealer's own are not part of the order) and the first payment
-- of a pai gow tiles player's main wager (step 'paid': a net above 0, whatever its word),
-- with the table_seq it stands at (a corrected event where the one it corrects stood) and
-- its time; and each seat's place in the seat order (pos, from 1; null: a seat the layout
-- does not list), the layout's length and the player banker's seat and place (not the
-- seat order itself: a list per row; a check reads it from rounds for its flags). A round
-- without a layout is in no row: the checks do not judge it (the report
-- checks/reports/seat_order_unjudged.sql says why).
WITH r AS (
    SELECT casino, table_id, round_id, seat_order, len(seat_order) AS n,
           CASE WHEN banker LIKE 'seat %'
                THEN TRY_CAST(split_part(banker, ' ', 2) AS INTEGER) END AS banker_seat
    FROM rounds
    WHERE game IN ('pai_gow_tiles', 'pai_gow_poker') AND seat_order IS NOT NULL
), ev AS (
    SELECT casino, table_id, round_id, any_value(game) AS game,
           CASE WHEN event = 'hands exposed' THEN 'shown' ELSE 'paid' END AS step, seat,
           min(table_seq) AS seq, arg_min(occurred_at, table_seq) AS at
    FROM play
    WHERE game IN ('pai_gow_tiles', 'pai_gow_poker') AND seat IS NOT NULL
      AND position <> 'banker'
      AND (event = 'hands exposed'
           OR event = 'wager settled' AND game = 'pai_gow_tiles' AND wager = 'main'
              AND net_cents > 0)
    GROUP BY casino, table_id, round_id, step, seat
)
SELECT e.*, r.n, r.banker_seat,
       list_position(r.seat_order, e.seat) AS pos,
       list_position(r.seat_order, r.banker_seat) AS banker_pos
FROM ev AS e
JOIN r USING (casino, table_id, round_id)
