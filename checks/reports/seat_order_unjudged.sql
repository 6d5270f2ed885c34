-- report: seat_order_unjudged
-- title: Rounds the checks of the order around the table could not judge, because no table layout was filed for the table (or the layout does not list a seat), and why
-- rule: docs/rules.md 8.1 (what cannot be judged is not evaluated, never passed) and 6a.21 (the order around the table)
-- A report, not a check: these rounds are not evaluated (neither passed nor flagged) by the
-- checks named in check_id, which need the table's seat order (rounds.seat_order: the
-- layout the casino filed for the table in force when the round was dealt,
-- docs/rulesets.md "Table layouts"): tiles_exposed_out_of_order (pai gow tiles, the
-- players' HandsExposed), tiles_winners_paid_out_of_order (pai gow tiles, the winning
-- main settlements) and players_exposed_out_of_order (classic pai gow poker, the remaining
-- players' HandsExposed). One row per round and check with two or more of those events to
-- order (one has no order to judge), when the round has no seat order, or its layout does
-- not list a seat among them or the player banker's seat. Columns: casino, table_id,
-- round_id, check_id, players (how many to order) and why.
WITH r AS (
    SELECT casino, table_id, round_id, game, seat_order,
           CASE WHEN banker LIKE 'seat %'
                THEN TRY_CAST(split_part(banker, ' ', 2) AS INTEGER) END AS banker_seat
    FROM rounds
    WHERE game IN ('pai_gow_tiles', 'pai_gow_poker')
), items AS (
    SELECT DISTINCT casino, table_id, round_id, seat,
           CASE WHEN event = 'hands exposed' AND game = 'pai_gow_tiles'
                    THEN 'tiles_exposed_out_of_order'
                WHEN event = 'hands exposed' THEN 'players_exposed_out_of_order'
                ELSE 'tiles_winners_paid_out_of_order' END AS check_id
    FROM play
    WHERE seat IS NOT NULL AND position <> 'banker'
      AND (event = 'hands exposed' AND game IN ('pai_gow_tiles', 'pai_gow_poker')
           OR event = 'wager settled' AND game = 'pai_gow_tiles' AND wager = 'main'
              AND net_cents > 0)
), per_round AS (
    SELECT i.casino, i.table_id, i.round_id, i.check_id, count(*) AS players,
           any_value(r.seat_order) AS seat_order, any_value(r.banker_seat) AS banker_seat,
           min(CASE WHEN list_position(r.seat_order, i.seat) IS NULL THEN i.seat END)
               AS unknown_seat
    FROM items AS i
    JOIN r USING (casino, table_id, round_id)
    GROUP BY i.casino, i.table_id, i.round_id, i.check_id
)
SELECT casino, table_id, round_id, check_id, players,
       CASE WHEN seat_order IS NULL
                THEN 'no table layout filed for table ' || table_id || ' of casino ' || casino
                     || ' in force when the round was dealt'
            WHEN unknown_seat IS NOT NULL
                THEN 'the table layout in force does not list seat ' || unknown_seat
            ELSE 'the table layout in force does not list seat ' || banker_seat
                 || ', the player banker''s' END AS why
FROM per_round
WHERE players >= 2
  AND (seat_order IS NULL OR unknown_seat IS NOT NULL
       OR banker_seat IS NOT NULL AND list_position(seat_order, banker_seat) IS NULL)
ORDER BY casino, table_id, round_id, check_id
