-- report: dealer_wager_unjudged
-- title: Player-banked pai gow poker rounds whose dealer's wager the check dealer_wager_not_preceding could not judge, and why
-- rule: pai gow poker procedure (10)
-- A report, not a check: these rounds are not evaluated (neither passed nor flagged) by
-- checks/sql/dealer_wager_not_preceding.sql, which orders a table's rounds and finds the
-- preceding dealer-banked hand the same way. Columns: casino, table_id, round_id, seat (the
-- banker's), dealer_cents (the dealer's wager, null when none was recorded) and why.
WITH poker AS (
    -- the player-banked rounds and their preceding dealer-banked hand (checks/sql/_views/)
    SELECT casino, table_id, round_id, dealt_at, banker_seat, preceding_round
    FROM preceding_dealer_hand
), against AS (
    SELECT o.casino, o.table_id, o.round_id, o.banker_seat, o.preceding_round, o.dealt_at,
           w.amount_cents AS dealer_cents
    FROM poker AS o
    JOIN wagers AS w USING (casino, table_id, round_id)
    WHERE w.position = 'dealer' AND w.seat IS NULL AND w.wager = 'main'
), preceding AS (
    SELECT a.casino, a.table_id, a.round_id, sum(w.amount_cents) AS main_cents
    FROM against AS a
    JOIN wagers AS w
      ON w.casino = a.casino AND w.table_id = a.table_id AND w.round_id = a.preceding_round
     AND w.seat = a.banker_seat
    WHERE w.wager = 'main'
    GROUP BY a.casino, a.table_id, a.round_id
)
SELECT a.casino, a.table_id, a.round_id, a.banker_seat AS seat, a.dealer_cents,
       CASE WHEN a.dealt_at IS NULL
                THEN 'the round has no start time: it cannot be placed among its table''s rounds'
            WHEN a.preceding_round IS NULL
                THEN 'no earlier hand banked by the dealer at this table'
            ELSE 'seat ' || a.banker_seat || ' placed no main wager on the preceding '
                 || 'dealer-banked hand ' || a.preceding_round END AS why
FROM against AS a
LEFT JOIN preceding AS p USING (casino, table_id, round_id)
WHERE p.main_cents IS NULL
ORDER BY a.casino, a.table_id, a.round_id
