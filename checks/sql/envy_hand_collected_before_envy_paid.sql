-- id: envy_hand_collected_before_envy_paid
-- title: Pai gow poker: an Envy Bonus Qualifying Hand collected before the Envy Bonuses for it were paid
-- severity: medium
-- rule: 58 Pa. Code § 688a.7(h)(2)(i)(B)-(C) (the dealer verbally acknowledges an Envy Bonus Qualifying Hand and leaves the cards of the player face up on the table) and (iii) (after all Envy Bonuses have been paid, the dealer collects all remaining cards and places them in the discard rack); in classic pai gow poker, whose side wagers and Envy are settled as in Face Up, by docs/rules.md 6a.18
-- next: pull the video of the settlement: an Envy Bonus paid after its qualifying hand was taken in was paid on a hand no longer in view; verify the hand from the table device's record of the dealt cards with the table supervisor and retrain the dealer on the order of settlement
-- catches: envy_hand_collected_early
-- Facts: the order of events within the round (the timeline, by table_seq; occurred_at is
-- shown, never used to order), of Face Up and classic pai gow poker rounds (whose side
-- wagers and Envy are settled as in Face Up: docs/rules.md 6a.18) recorded under schema
-- id 3 (rounds.vocabulary >= 3), the only vocabulary with a HandCollected event. The hand
-- of an EnvyBonusPaid is its for_seat's (none: the dealer's; that such a payment is owed
-- no Envy is envy_own_or_dealer_hand's to say). Offending rows: one per hand collected (its
-- first HandCollected) before the last Envy Bonus paid for it, naming that payment; seat
-- is the holder's (null: the dealer's hand). Lawful: the hand collected after every Envy
-- Bonus paid for it, the other hands collected before (a hand no Envy is paid for), and
-- Envy Bonuses in any order among themselves. A corrected event stands where the event it
-- corrects stood (the view play). A hand whose collection is not recorded is not judged
-- here; a round under an older vocabulary is not evaluated
-- (checks/reports/vocabulary_unjudged.sql).
WITH judged AS (
    SELECT casino, table_id, round_id
    FROM rounds
    WHERE game IN ('face_up_pai_gow', 'pai_gow_poker') AND vocabulary >= 3
), paid AS (
    SELECT casino, table_id, round_id, for_seat, max(table_seq) AS paid_seq,
           arg_max(seat, table_seq) AS receiver
    FROM play
    SEMI JOIN judged USING (casino, table_id, round_id)
    WHERE event = 'Envy Bonus paid'
    GROUP BY casino, table_id, round_id, for_seat
), collected AS (
    SELECT casino, table_id, round_id, seat, min(table_seq) AS collected_seq,
           arg_min(occurred_at, table_seq) AS collected_at
    FROM play
    SEMI JOIN paid USING (casino, table_id, round_id)
    WHERE event = 'hand collected'
    GROUP BY casino, table_id, round_id, seat
)
SELECT
    p.casino,
    p.table_id,
    p.round_id,
    p.for_seat AS seat,
    coalesce('seat ' || p.for_seat || '''s', 'the dealer''s') || ' hand was collected '
        || '(table_seq ' || c.collected_seq || ', '
        || strftime(c.collected_at, '%Y-%m-%dT%H:%M:%S.%fZ') || ') before seat '
        || p.receiver || ' was paid an Envy Bonus for it (table_seq ' || p.paid_seq || ')'
        AS detail
FROM paid AS p
JOIN collected AS c
  ON c.casino = p.casino AND c.table_id = p.table_id AND c.round_id = p.round_id
 AND c.seat IS NOT DISTINCT FROM p.for_seat
WHERE c.collected_seq < p.paid_seq
ORDER BY p.casino, p.table_id, p.round_id, p.for_seat NULLS FIRST
