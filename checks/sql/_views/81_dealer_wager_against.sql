-- dealer_wager_against: every classic pai gow poker round a player banks with a dealer's own
-- main wager against the bank (dealer_cents), with its preceding dealer-banked hand
-- (preceding_round, dealt_at: from preceding_dealer_hand, rounds without a start time
-- included) and the banker as the log names them: banker_patron, the one patron id on the
-- banker seat's wagers of the round when the preceding hand's wagers name patrons too;
-- elsewhere_patron and now_at, when the banker's patron is not recorded, the patron who sat
-- at the banker's seat on the preceding hand and plays at another seat now (not the banker,
-- so the seat cannot stand for the player); matched_other, whether the dealer then matched
-- that patron's wager on the preceding hand and no other patron of that hand who might be
-- the banker bet that amount there (the dealer matched the seat, not the player);
-- preceding_cents and preceding_seats, that player's main wager on the preceding hand (the
-- patron's whatever seat, else the banker seat's; null when none, or when elsewhere_patron
-- is known). dealer_wager_not_preceding judges the rounds with a start time; the report
-- dealer_wager_unjudged lists those it cannot judge. Pai gow poker procedure (10).
WITH against AS (
    -- the dealer's own main wager against a player banker
    SELECT o.casino, o.table_id, o.round_id, o.banker_seat, o.preceding_round, o.dealt_at,
           w.amount_cents AS dealer_cents
    FROM preceding_dealer_hand AS o
    JOIN wagers AS w USING (casino, table_id, round_id)
    WHERE w.position = 'dealer' AND w.seat IS NULL AND w.wager = 'main'
), named AS (
    -- the rounds whose wagers name patrons
    SELECT DISTINCT casino, table_id, round_id FROM wagers WHERE patron_id IS NOT NULL
), patrons AS (
    -- the banker's patron: the one patron id on the banker seat's wagers of the round, when
    -- the preceding hand's wagers name patrons too
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
    -- that player's main wager on the preceding dealer-banked hand: the patron's, whatever
    -- seat, else the banker seat's
    SELECT a.casino, a.table_id, a.round_id, any_value(b.patron_id) AS patron_id,
           sum(w.amount_cents) AS main_cents,
           array_to_string(list_sort(list(DISTINCT w.seat)), ', ') AS seats
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
SELECT a.casino, a.table_id, a.round_id, a.banker_seat, a.preceding_round, a.dealt_at,
       a.dealer_cents, b.patron_id AS banker_patron, x.patron_id AS elsewhere_patron,
       x.now_at, m.round_id IS NOT NULL AS matched_other, p.main_cents AS preceding_cents,
       p.seats AS preceding_seats
FROM against AS a
LEFT JOIN patrons AS b USING (casino, table_id, round_id)
LEFT JOIN elsewhere AS x USING (casino, table_id, round_id)
LEFT JOIN (SELECT DISTINCT casino, table_id, round_id FROM matched_other) AS m
  USING (casino, table_id, round_id)
LEFT JOIN preceding AS p USING (casino, table_id, round_id)
