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
-- Reads dealer_wager_against (checks/sql/_views/81_dealer_wager_against.sql), shared with
-- the report.
SELECT
    a.casino,
    a.round_id,
    a.table_id,
    a.banker_seat AS seat,
    'main' AS wager,
    a.dealer_cents AS recorded_cents,
    CAST(a.preceding_cents AS BIGINT) AS expected_cents,
    'dealer''s wager ' || a.dealer_cents || ' against the player banker at seat '
        || a.banker_seat || CASE WHEN a.banker_patron IS NOT NULL
            THEN ' (patron ' || a.banker_patron || '), whose wager on the preceding dealer-banked '
                 || 'hand ' || a.preceding_round || ' (at seat ' || a.preceding_seats || ') was '
                 || a.preceding_cents || ' (cents)'
            ELSE ', whose wager on the preceding dealer-banked hand '
                 || a.preceding_round || ' was ' || a.preceding_cents
                 || ' (cents; seat, not patron: the log names no patron)' END AS detail
FROM dealer_wager_against AS a
WHERE a.dealt_at IS NOT NULL AND a.preceding_cents IS NOT NULL
  AND a.dealer_cents IS DISTINCT FROM a.preceding_cents
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
        || a.preceding_round || ' of patron ' || a.elsewhere_patron || ', who sat at seat '
        || a.banker_seat || ' then and plays at seat ' || a.now_at || ' now: not the banker '
        || '(whose patron is not recorded; no other patron of that hand who might be the '
        || 'banker bet ' || a.dealer_cents || ' there)' AS detail
FROM dealer_wager_against AS a
WHERE a.dealt_at IS NOT NULL AND a.matched_other
ORDER BY casino, table_id, round_id
