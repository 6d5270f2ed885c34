-- report: vocabulary_unjudged
-- title: Rounds the checks of schema id 3's facts could not judge, because the round was recorded under an older vocabulary (or the fact was not recorded), and why
-- rule: docs/rules.md 8.1 (what cannot be judged is not evaluated, never passed)
-- A report, not a check: these rounds are not evaluated (neither passed nor flagged) by the
-- checks named in check_id, which judge facts only schema id 3 carries (Shuffled,
-- HandCollected, BankPassed, HandChanged, RoundStarted.banker_cover_cents). A round's
-- vocabulary is the smallest schema id among its events (rounds.vocabulary; null: an older
-- replay that did not say, taken as older). One row per round and check that would
-- otherwise judge it: reshuffle_missing every classic pai gow poker round (and, under
-- schema id 3, every such round at a table that recorded no Shuffled at all); hand_changed_after_banker_exposed (its
-- HandChanged part) every classic pai gow poker round; optional_settled_after_collected
-- every Face Up and classic pai gow poker round; envy_hand_collected_before_envy_paid every
-- such round with an Envy Bonus paid; jackpot_hand_collected_before_paid every round with a jackpot hit;
-- bank_passed_not_followed every pai gow poker and pai gow tiles round; bank_not_covered
-- every player-banked pai gow poker and pai gow tiles round without the cover recorded
-- (under schema id 3 too: the field is optional). Columns: casino, table_id, round_id,
-- vocabulary, check_id and why.
WITH older AS (
    SELECT casino, table_id, round_id, game, banker, vocabulary, banker_cover_cents,
           'recorded under vocabulary ' || coalesce(CAST(vocabulary AS VARCHAR), 'unknown')
               || ', which cannot carry ' AS under
    FROM rounds
    WHERE vocabulary IS NULL OR vocabulary < 3
), facts AS (
    SELECT DISTINCT casino, table_id, round_id, event
    FROM play
    SEMI JOIN older USING (casino, table_id, round_id)
    WHERE event IN ('jackpot hit', 'Envy Bonus paid')
), shuffling AS (
    SELECT DISTINCT casino, table_id FROM play WHERE event = 'shuffled'
), rows AS (
    SELECT casino, table_id, round_id, vocabulary, 'reshuffle_missing' AS check_id,
           under || 'a shuffle (Shuffled)' AS why
    FROM older WHERE game = 'pai_gow_poker'
    UNION ALL
    SELECT r.casino, r.table_id, r.round_id, r.vocabulary, 'reshuffle_missing',
           'the table recorded no shuffle (Shuffled) in these outputs: its device may not '
               || 'send them, so the absence of one is no evidence'
    FROM rounds AS r
    ANTI JOIN shuffling AS s USING (casino, table_id)
    WHERE r.game = 'pai_gow_poker' AND r.vocabulary >= 3
    UNION ALL
    SELECT casino, table_id, round_id, vocabulary, 'hand_changed_after_banker_exposed',
           under || 'the dealer''s change of an exposed hand (HandChanged); a player''s '
               || 'setting after the banker''s exposure is judged'
    FROM older WHERE game = 'pai_gow_poker'
    UNION ALL
    SELECT casino, table_id, round_id, vocabulary, 'optional_settled_after_collected',
           under || 'the collection of a hand (HandCollected)'
    FROM older WHERE game IN ('face_up_pai_gow', 'pai_gow_poker')
    UNION ALL
    SELECT o.casino, o.table_id, o.round_id, o.vocabulary,
           'envy_hand_collected_before_envy_paid',
           o.under || 'the collection of a hand (HandCollected)'
    FROM older AS o
    SEMI JOIN (SELECT * FROM facts WHERE event = 'Envy Bonus paid') AS f
        USING (casino, table_id, round_id)
    WHERE o.game IN ('face_up_pai_gow', 'pai_gow_poker')
    UNION ALL
    SELECT o.casino, o.table_id, o.round_id, o.vocabulary,
           'jackpot_hand_collected_before_paid',
           o.under || 'the collection of a hand (HandCollected)'
    FROM older AS o
    SEMI JOIN (SELECT * FROM facts WHERE event = 'jackpot hit') AS f
        USING (casino, table_id, round_id)
    UNION ALL
    SELECT casino, table_id, round_id, vocabulary, 'bank_passed_not_followed',
           under || 'who banks next (BankPassed)'
    FROM older WHERE game IN ('pai_gow_poker', 'pai_gow_tiles')
    UNION ALL
    SELECT casino, table_id, round_id, vocabulary, 'bank_not_covered',
           CASE WHEN coalesce(vocabulary >= 3, false)
                THEN 'the player banker''s cover was not recorded (RoundStarted.banker_cover_cents)'
                ELSE 'recorded under vocabulary '
                     || coalesce(CAST(vocabulary AS VARCHAR), 'unknown')
                     || ', which cannot carry the player banker''s cover '
                     || '(RoundStarted.banker_cover_cents)'
           END
    FROM rounds
    WHERE game IN ('pai_gow_poker', 'pai_gow_tiles') AND banker LIKE 'seat %'
      AND banker_cover_cents IS NULL
)
SELECT casino, table_id, round_id, vocabulary, check_id, why
FROM rows
ORDER BY casino, table_id, round_id, check_id
