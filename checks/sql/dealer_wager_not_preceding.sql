-- id: dealer_wager_not_preceding
-- title: The dealer's wager against a player banker differs from that player's wager on the preceding hand the dealer banked
-- severity: medium
-- rule: pai gow poker procedure (10) (the dealer's bet against the player banker is an amount equal to that player's bet on the preceding hand when the dealer was the banker)
-- next: pull the video of both rounds named in the detail; confirm who sat at the banker's seat in each (the detail says whether the log named the patron or only the seat), and if it was the same patron, correct the dealer's wager with the table supervisor and review the dealer's settlement of the bank
-- catches: dealer_wager_not_preceding, dealer_wager_not_preceding_patron
-- Offending rows: a classic pai gow poker round banked by a player (alone or co-banked with
-- the house) with a dealer's main wager against the bank (position 'dealer', seat null)
-- whose amount differs from the main wager the banker's seat placed on the preceding hand
-- the dealer banked at the same casino and table. "Preceding hand when the dealer was the
-- banker": the latest earlier round of that table's pai gow poker, in the order rounds
-- were dealt (dealt_at, then round id, as the other checks order a table's rounds), that
-- the dealer banked and that was not voided; the player-banked rounds in between do not
-- count, whoever banked them. "That player's bet": the main wager (side wagers are not
-- the bet the dealer matches) placed by that player. The player is the patron when the
-- log names one (schema id 3's WagerPlaced.patron_id): the one patron id on the banker
-- seat's wagers of the round, matched with that patron's main wager on the preceding
-- hand whatever seat they sat at then (a patron who moved seats; another patron who took
-- the banker's old seat is not the banker). Without a patron id (the banker seat's wagers
-- carry none, or more than one, or the preceding hand's wagers carry none: an older
-- vocabulary) the seat stands for the player: the main wager placed from the seat that
-- banks now, and the detail says so (a patron who moved seats cannot then be told apart
-- from the video alone), unless the round's other wagers show the patron who sat at that
-- seat on the preceding hand at another seat now: that patron is not the banker, and the
-- round is not evaluated, unless the dealer's wager is that patron's wager on the
-- preceding hand and no other patron of that hand who might be the banker (one not seen in
-- this round) bet that amount there: then the dealer matched the seat, not the player, and
-- the round is flagged without an expected amount (the banker's own bet is not known).
-- Not evaluated, never a pass and never a flag: a round with no earlier dealer-banked
-- hand at its table, one whose banker (patron, or seat) placed no main wager on that hand,
-- and one without a start time; checks/reports/dealer_wager_unjudged.sql lists them with
-- why.
-- recorded: the dealer's wager; expected: that seat's wager on the preceding hand.
WITH ordered AS (
    -- the preceding dealer-banked hand (checks/sql/_views/, shared with the report)
    SELECT casino, table_id, round_id, banker_seat, preceding_round
    FROM preceding_dealer_hand
    WHERE dealt_at IS NOT NULL
), against AS (
    -- the dealer's own main wager against a player banker
    SELECT o.casino, o.table_id, o.round_id, o.banker_seat, o.preceding_round,
           w.amount_cents AS dealer_cents
    FROM ordered AS o
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
SELECT
    a.casino,
    a.round_id,
    a.table_id,
    a.banker_seat AS seat,
    'main' AS wager,
    a.dealer_cents AS recorded_cents,
    CAST(p.main_cents AS BIGINT) AS expected_cents,
    'dealer''s wager ' || a.dealer_cents || ' against the player banker at seat '
        || a.banker_seat || CASE WHEN p.patron_id IS NOT NULL
            THEN ' (patron ' || p.patron_id || '), whose wager on the preceding dealer-banked '
                 || 'hand ' || a.preceding_round || ' (at seat ' || p.seats || ') was '
                 || p.main_cents || ' (cents)'
            ELSE ', whose wager on the preceding dealer-banked hand '
                 || a.preceding_round || ' was ' || p.main_cents
                 || ' (cents; seat, not patron: the log names no patron)' END AS detail
FROM against AS a
JOIN preceding AS p USING (casino, table_id, round_id)
WHERE a.dealer_cents IS DISTINCT FROM p.main_cents
UNION ALL
SELECT
    a.casino,
    a.round_id,
    a.table_id,
    a.banker_seat AS seat,
    'main' AS wager,
    a.dealer_cents AS recorded_cents,
    NULL::BIGINT AS expected_cents,
    'dealer''s wager ' || a.dealer_cents || ' against the player banker at seat '
        || a.banker_seat || ' matches the wager on the preceding dealer-banked hand '
        || a.preceding_round || ' of patron ' || m.patron_id || ', who sat at seat '
        || a.banker_seat || ' then and plays at seat ' || m.now_at || ' now: not the banker '
        || '(whose patron is not recorded; no other patron of that hand who might be the '
        || 'banker bet ' || a.dealer_cents || ' there)' AS detail
FROM against AS a
JOIN matched_other AS m USING (casino, table_id, round_id)
ORDER BY casino, table_id, round_id
