-- id: dealer_wager_not_preceding
-- title: The dealer's wager against a player banker differs from that player's wager on the preceding hand the dealer banked
-- severity: medium
-- rule: pai gow poker procedure (10) (the dealer's bet against the player banker is an amount equal to that player's bet on the preceding hand when the dealer was the banker)
-- next: pull the video of both rounds named in the detail; confirm who sat at the banker's seat in each (the log names seats, not patrons), and if it was the same patron, correct the dealer's wager with the table supervisor and review the dealer's settlement of the bank
-- catches: dealer_wager_not_preceding
-- Offending rows: a classic pai gow poker round banked by a player (alone or co-banked with
-- the house) with a dealer's main wager against the bank (position 'dealer', seat null)
-- whose amount differs from the main wager the banker's seat placed on the preceding hand
-- the dealer banked at the same casino and table. "Preceding hand when the dealer was the
-- banker": the latest earlier round of that table's pai gow poker, in the order rounds
-- were dealt (dealt_at, then round id, as the other checks order a table's rounds), that
-- the dealer banked and that was not voided; the player-banked rounds in between do not
-- count, whoever banked them. "That player's bet": the main wager (side wagers are not
-- the bet the dealer matches) placed from the seat that banks now. The player is
-- identified by seat: the log has no patron id yet (a patron id on a wager is future
-- schema work), so a patron who changed seats between the two hands, or a new patron in
-- the same seat, cannot be told apart from the video alone and this check names seats.
-- Not evaluated, never a pass and never a flag: a round with no earlier dealer-banked
-- hand at its table, one whose banker seat placed no main wager on that hand, and one
-- without a start time; checks/reports/dealer_wager_unjudged.sql lists them with why.
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
), preceding AS (
    -- that seat's main wager on the preceding dealer-banked hand
    SELECT a.casino, a.table_id, a.round_id, sum(w.amount_cents) AS main_cents
    FROM against AS a
    JOIN wagers AS w
      ON w.casino = a.casino AND w.table_id = a.table_id AND w.round_id = a.preceding_round
     AND w.seat = a.banker_seat
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
        || a.banker_seat || ', whose wager on the preceding dealer-banked hand '
        || a.preceding_round || ' was ' || p.main_cents
        || ' (cents; seat, not patron: the log has no patron id)' AS detail
FROM against AS a
JOIN preceding AS p USING (casino, table_id, round_id)
WHERE a.dealer_cents IS DISTINCT FROM p.main_cents
ORDER BY a.casino, a.table_id, a.round_id
