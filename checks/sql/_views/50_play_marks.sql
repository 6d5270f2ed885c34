-- play_marks: the rounds where an event of the order of play comes before or after one it
-- must not, by one pass over the view play: per round, the first or last table_seq of
-- each kind of event the checks of the order of play compare, and one mark per check,
-- true when the round may hold its fault. Each mark is a necessary condition of its check's
-- rows, never sufficient (a seat that set again, a withdrawal of another seat), so a check
-- reads only the events of its marked rounds (SEMI JOIN play_marks) and says there exactly what
-- it would have said reading every round: face_up_set_before_dealer (a seat's HandSet
-- before the dealer's first), winner_paid_before_losers (a winning main settlement before
-- the last collection, pai gow poker tie or pai gow tiles seat's HandsExposed),
-- envy_before_fortune_settled (an Envy Bonus before the last Fortune settlement),
-- concede_before_dealer_exposed, hands_set_out_of_order (a player's HandSet after the
-- player banker's last or the dealer's first HandSet or HandsExposed, or the dealer's
-- before the player banker's last), tiles_dealer_set_before_players (a seat's HandSet
-- after the dealer's first HandSet or HandsExposed), tiles_withdrawal_out_of_order (a
-- withdrawal before the dealer's first HandSet, or after a seat's first HandsExposed).
-- A round without a mark is in no row of these checks; the lawful rounds (nearly all of
-- them) are dropped here, once, instead of by each check.
WITH ev AS (
    -- each event once, as the bits of what it is to the checks (a round is of one game,
    -- so the bits of one game share their place with those of another: see seqs)
    SELECT casino, table_id, round_id, game, table_seq,
        CASE game
            WHEN 'face_up_pai_gow' THEN
                CASE WHEN event = 'hand set' THEN
                         CASE WHEN position = 'dealer' THEN 2 WHEN seat IS NOT NULL THEN 4
                              ELSE 0 END
                     WHEN event = 'Envy Bonus paid' THEN 8
                     WHEN event = 'wager settled' AND wager = 'fortune' THEN 64
                     ELSE 0 END
            WHEN 'caribbean_stud' THEN
                CASE WHEN event = 'player acted' AND action = 'concede' THEN 2
                     WHEN event = 'hands exposed' AND position = 'dealer' THEN 4
                     ELSE 0 END
            WHEN 'pai_gow_poker' THEN
                CASE WHEN event = 'hand set' AND position LIKE 'seat %' THEN 64
                     WHEN event = 'hand set' AND position = 'banker' THEN 128
                     WHEN event IN ('hand set', 'hands exposed') AND position = 'dealer'
                         THEN 2
                     ELSE 0 END
            WHEN 'pai_gow_tiles' THEN
                CASE WHEN event = 'hand set' AND position = 'dealer' THEN 2 + 4
                     WHEN event = 'hands exposed' AND position = 'dealer' THEN 2
                     WHEN event = 'hand set' AND seat IS NOT NULL THEN 64
                     WHEN event = 'player acted' AND action = 'withdraw' THEN 8 + 128
                     WHEN event = 'hands exposed' AND seat IS NOT NULL THEN 16 + 32
                     ELSE 0 END
            ELSE 0 END
        + CASE WHEN event = 'wager settled' AND wager = 'main' AND seat IS NOT NULL
                    AND position <> 'banker'
                    AND game IN ('pai_gow_poker', 'face_up_pai_gow', 'pai_gow_tiles')
               THEN CASE WHEN net_cents > 0 THEN 1
                         WHEN net_cents < 0 OR net_cents = 0 AND game = 'pai_gow_poker'
                             THEN 32
                         ELSE 0 END
               ELSE 0 END AS bits
    FROM play
    WHERE event IN ('hand set', 'hands exposed', 'player acted', 'wager settled',
                    'Envy Bonus paid')
), seqs AS (
    -- first1..first4: the first table_seq of the events of bit 1, 2, 4, 8 (16: first5);
    -- last1..last3 the last of bit 32, 64, 128. Bit 1 is a winning main settlement and 32
    -- a collection (or a pai gow poker tie, or a pai gow tiles seat's HandsExposed): what
    -- a win must not come before. Then, by game: Face Up 2 the dealer's HandSet, 4 a
    -- seat's, 8 an Envy Bonus, 64 a Fortune settlement; Caribbean stud 2 a concede, 4 the
    -- dealer's HandsExposed; pai gow poker 2 the dealer's HandSet or HandsExposed, 64 a
    -- player's HandSet, 128 the player banker's; pai gow tiles 2 the dealer's HandSet or
    -- HandsExposed, 4 the dealer's HandSet, 8 and 128 a withdrawal, 16 a seat's
    -- HandsExposed, 64 a seat's HandSet.
    SELECT casino, table_id, round_id, any_value(game) AS game,
        min(CASE WHEN bits & 1 <> 0 THEN table_seq END) AS first1,
        min(CASE WHEN bits & 2 <> 0 THEN table_seq END) AS first2,
        min(CASE WHEN bits & 4 <> 0 THEN table_seq END) AS first4,
        min(CASE WHEN bits & 8 <> 0 THEN table_seq END) AS first8,
        min(CASE WHEN bits & 16 <> 0 THEN table_seq END) AS first16,
        max(CASE WHEN bits & 32 <> 0 THEN table_seq END) AS last32,
        max(CASE WHEN bits & 64 <> 0 THEN table_seq END) AS last64,
        max(CASE WHEN bits & 128 <> 0 THEN table_seq END) AS last128
    FROM ev
    WHERE bits <> 0
    GROUP BY casino, table_id, round_id
), marks AS (
    SELECT casino, table_id, round_id,
        coalesce(game = 'face_up_pai_gow' AND first4 < first2, false)
            AS face_up_set_before_dealer,
        coalesce(first1 < last32, false) AS winner_paid_before_losers,
        coalesce(game = 'face_up_pai_gow' AND first8 < last64, false)
            AS envy_before_fortune_settled,
        coalesce(game = 'caribbean_stud' AND first2 < first4, false)
            AS concede_before_dealer_exposed,
        coalesce(game = 'pai_gow_poker' AND (last64 > last128 OR first2 < last128
                                             OR last64 > first2), false)
            AS hands_set_out_of_order,
        coalesce(game = 'pai_gow_tiles' AND last64 > first2, false)
            AS tiles_dealer_set_before_players,
        coalesce(game = 'pai_gow_tiles' AND (first8 < first4 OR last128 > first16), false)
            AS tiles_withdrawal_out_of_order
    FROM seqs
)
SELECT * FROM marks
WHERE face_up_set_before_dealer OR winner_paid_before_losers OR envy_before_fortune_settled
   OR concede_before_dealer_exposed OR hands_set_out_of_order
   OR tiles_dealer_set_before_players OR tiles_withdrawal_out_of_order
