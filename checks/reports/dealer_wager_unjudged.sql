-- report: dealer_wager_unjudged
-- title: Player-banked pai gow poker rounds whose dealer's wager the check dealer_wager_not_preceding could not judge, and why
-- rule: pai gow poker procedure (10)
-- A report, not a check: these rounds are not evaluated (neither passed nor flagged) by
-- checks/sql/dealer_wager_not_preceding.sql, which orders a table's rounds and finds the
-- preceding dealer-banked hand and the banker (the patron, else the seat) the same way.
-- Columns: casino, table_id, round_id, seat (the banker's), dealer_cents (the dealer's
-- wager, null when none was recorded) and why.
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
), named AS (
    SELECT DISTINCT casino, table_id, round_id FROM wagers WHERE patron_id IS NOT NULL
), patrons AS (
    -- the banker's patron, as the check finds it (the one patron id on the banker seat's
    -- wagers, when the preceding hand's wagers name patrons too)
    SELECT a.casino, a.table_id, a.round_id, any_value(w.patron_id) AS patron_id
    FROM against AS a
    JOIN named AS d
      ON d.casino = a.casino AND d.table_id = a.table_id AND d.round_id = a.preceding_round
    JOIN wagers AS w
      ON w.casino = a.casino AND w.table_id = a.table_id AND w.round_id = a.round_id
     AND w.seat = a.banker_seat
    WHERE w.patron_id IS NOT NULL
    GROUP BY a.casino, a.table_id, a.round_id
    HAVING count(DISTINCT w.patron_id) = 1
), elsewhere AS (
    -- the banker's patron not recorded: the patron who sat at the banker's seat on the
    -- preceding hand, when the round's other wagers show them at another seat now (so
    -- they are not the banker, and the seat cannot stand for the player)
    SELECT a.casino, a.table_id, a.round_id, min(d.patron_id) AS patron_id,
           min(w.seat) AS now_at
    FROM against AS a
    ANTI JOIN patrons AS b USING (casino, table_id, round_id)
    JOIN wagers AS d
      ON d.casino = a.casino AND d.table_id = a.table_id AND d.round_id = a.preceding_round
     AND d.seat = a.banker_seat AND d.patron_id IS NOT NULL
    JOIN wagers AS w
      ON w.casino = a.casino AND w.table_id = a.table_id AND w.round_id = a.round_id
     AND w.patron_id = d.patron_id AND w.seat IS DISTINCT FROM a.banker_seat
    GROUP BY a.casino, a.table_id, a.round_id
), matched_other AS (
    -- the banker's patron not recorded, and the dealer matched the preceding wager of the
    -- patron who sat at the banker's seat then and plays at another seat now (so is not
    -- the banker), when no other patron of that hand who might be the banker (one not
    -- seen in this round) bet that amount there: the dealer matched the seat, not the player
    SELECT x.casino, x.table_id, x.round_id, x.patron_id, x.now_at
    FROM elsewhere AS x
    JOIN against AS a USING (casino, table_id, round_id)
    WHERE a.dealer_cents = (
              SELECT sum(o.amount_cents) FROM wagers AS o
              WHERE o.casino = a.casino AND o.table_id = a.table_id
                AND o.round_id = a.preceding_round AND o.wager = 'main'
                AND o.patron_id = x.patron_id)
      AND NOT EXISTS (
              SELECT 1 FROM wagers AS c
              WHERE c.casino = a.casino AND c.table_id = a.table_id
                AND c.round_id = a.preceding_round AND c.wager = 'main'
                AND c.patron_id IS NOT NULL AND c.patron_id <> x.patron_id
                AND c.amount_cents = a.dealer_cents
                AND NOT EXISTS (
                        SELECT 1 FROM wagers AS s
                        WHERE s.casino = a.casino AND s.table_id = a.table_id
                          AND s.round_id = a.round_id AND s.patron_id = c.patron_id))
), preceding AS (
    SELECT a.casino, a.table_id, a.round_id, sum(w.amount_cents) AS main_cents
    FROM against AS a
    LEFT JOIN patrons AS b USING (casino, table_id, round_id)
    ANTI JOIN elsewhere AS x USING (casino, table_id, round_id)
    JOIN wagers AS w
      ON w.casino = a.casino AND w.table_id = a.table_id AND w.round_id = a.preceding_round
     AND CASE WHEN b.patron_id IS NOT NULL THEN w.patron_id = b.patron_id
              ELSE w.seat = a.banker_seat END
    WHERE w.wager = 'main'
    GROUP BY a.casino, a.table_id, a.round_id
)
SELECT a.casino, a.table_id, a.round_id, a.banker_seat AS seat, a.dealer_cents,
       CASE WHEN a.dealt_at IS NULL
                THEN 'the round has no start time: it cannot be placed among its table''s rounds'
            WHEN a.preceding_round IS NULL
                THEN 'no earlier hand banked by the dealer at this table'
            WHEN x.patron_id IS NOT NULL
                THEN 'the banker''s patron is not recorded (no wager of seat ' || a.banker_seat
                     || ' names one), and patron ' || x.patron_id || ', who sat at seat '
                     || a.banker_seat || ' on the preceding dealer-banked hand '
                     || a.preceding_round || ', plays at seat ' || x.now_at || ' now'
            WHEN b.patron_id IS NOT NULL
                THEN 'patron ' || b.patron_id || ' (the banker at seat ' || a.banker_seat
                     || ') placed no main wager on the preceding dealer-banked hand '
                     || a.preceding_round
            ELSE 'seat ' || a.banker_seat || ' placed no main wager on the preceding '
                 || 'dealer-banked hand ' || a.preceding_round END AS why
FROM against AS a
LEFT JOIN preceding AS p USING (casino, table_id, round_id)
LEFT JOIN patrons AS b USING (casino, table_id, round_id)
LEFT JOIN elsewhere AS x USING (casino, table_id, round_id)
ANTI JOIN matched_other AS m USING (casino, table_id, round_id)
WHERE p.main_cents IS NULL
ORDER BY a.casino, a.table_id, a.round_id
