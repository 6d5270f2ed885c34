-- id: optional_settled_after_collected
-- title: Pai gow poker: an optional wager (Ace High, Fortune, Progressive) settled after the player's cards were collected into the discard rack
-- severity: medium
-- rule: 58 Pa. Code § 688a.7(i) (the dealer settles all of a player's optional wagers before placing the player's cards in the discard rack); in classic pai gow poker, whose Fortune and Progressive wagers are settled as in Face Up, by docs/rules.md 6a.18
-- next: pull the video of the settlement: an optional wager settled after the cards went to the discard rack was settled without the hand in view; check its amount against the hand with the table supervisor (the round's money checks too) and retrain the dealer on the order of settlement
-- catches: optional_settled_after_collected
-- Facts: the order of events within the round (the timeline, by table_seq; occurred_at is
-- shown, never used to order), of Face Up and classic pai gow poker rounds (whose side
-- wagers are settled as in Face Up: docs/rules.md 6a.18) recorded under schema id 3
-- (rounds.vocabulary >= 3), the only vocabulary with a HandCollected event. Offending rows:
-- one per optional wager (Ace High, Fortune or Progressive) whose WagerSettled comes after
-- the first HandCollected of the same seat. Lawful: every optional wager settled before its
-- seat's cards are collected, in any order among the seats, and another seat's (or the
-- dealer's) cards collected before it; the main wager is not an optional wager. A corrected
-- event stands where the event it corrects stood (the view play). A seat whose collection
-- is not recorded is not judged here; a round under an older vocabulary is not evaluated
-- (checks/reports/vocabulary_unjudged.sql).
WITH judged AS (
    SELECT casino, table_id, round_id
    FROM rounds
    WHERE game IN ('face_up_pai_gow', 'pai_gow_poker') AND vocabulary >= 3
), collected AS (
    SELECT casino, table_id, round_id, seat, min(table_seq) AS collected_seq
    FROM play
    SEMI JOIN judged USING (casino, table_id, round_id)
    WHERE event = 'hand collected' AND seat IS NOT NULL
    GROUP BY casino, table_id, round_id, seat
)
SELECT
    p.casino,
    p.table_id,
    p.round_id,
    p.seat,
    p.wager,
    'seat ' || p.seat || '''s ' || p.wager || ' wager was settled (table_seq ' || p.table_seq
        || ', ' || strftime(p.occurred_at, '%Y-%m-%dT%H:%M:%S.%fZ') || ') after its cards '
        || 'were collected into the discard rack (table_seq ' || c.collected_seq || ')'
        AS detail
FROM play AS p
JOIN collected AS c USING (casino, table_id, round_id, seat)
WHERE p.event = 'wager settled' AND p.wager IN ('ace_high', 'fortune', 'progressive')
  AND p.table_seq > c.collected_seq
ORDER BY p.casino, p.table_id, p.round_id, p.seat, p.table_seq
