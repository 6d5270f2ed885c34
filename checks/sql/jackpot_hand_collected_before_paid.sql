-- id: jackpot_hand_collected_before_paid
-- title: A progressive jackpot hand collected before the jackpot was paid
-- severity: high
-- rule: 58 Pa. Code § 688a.7(h)(3)(i)(B)(1)-(4) (the winning hand verified, the light verified, the payout validated and paid, the cards of the player remaining on the table); Caribbean stud rule 9.5 (the cards of a hand qualifying for a progressive jackpot are left face up and not collected or discarded until the pay out on the hand has been made)
-- next: hold the award until the hand is verified from the video and the table device's record of the dealt cards (the cards are no longer on the table to verify); have the floorperson document why the hand was collected, and report it to surveillance and compliance
-- catches: jackpot_hand_collected_early
-- Facts: the order of events within the round (the timeline, by table_seq; occurred_at is
-- shown, never used to order), of rounds recorded under schema id 3 (rounds.vocabulary >=
-- 3), the only vocabulary with a HandCollected event. A seat with a JackpotHit; its payment
-- is the JackpotVerified step 'paid' when one is recorded for the seat (the payout, as
-- jackpot_unverified reads it), otherwise the seat's winning Progressive WagerSettled.
-- Offending rows: one per such seat whose first HandCollected comes before that payment.
-- Lawful: the hand collected after its payment, and other seats' (or the dealer's) cards
-- collected while the jackpot hand waits. A seat with neither a paid step nor a winning
-- Progressive settlement is not judged here (jackpot_unverified says the payment was not
-- recorded); a seat whose collection is not recorded is not judged either; a round under an
-- older vocabulary is not evaluated (checks/reports/vocabulary_unjudged.sql). The step is
-- read from the timeline's words (replay/timeline.py: 'seat N jackpot: paid by ...'),
-- since the timeline has no typed column for it; a corrected event stands where the event
-- it corrects stood. Not judged: § 688a.7(h)(3)(i)(B)(4)'s further wait, for a payout not
-- paid from the table inventory, until the documentation is completed.
WITH judged AS (
    SELECT casino, table_id, round_id FROM rounds WHERE vocabulary >= 3
), hits AS (
    SELECT DISTINCT casino, table_id, round_id, seat
    FROM play
    SEMI JOIN judged USING (casino, table_id, round_id)
    WHERE event = 'jackpot hit' AND seat IS NOT NULL
), marks AS (
    SELECT t.casino, t.table_id, t.round_id, t.seat,
        min(t.stands_at) FILTER (
            WHERE coalesce(t.replacement, t.event) = 'jackpot step recorded'
              AND regexp_matches(t.summary, '(^|: )seat \d+ jackpot: paid by ')) AS step_seq,
        min(t.stands_at) FILTER (
            WHERE coalesce(t.replacement, t.event) = 'wager settled'
              AND t.wager = 'progressive' AND t.net_cents > 0) AS settled_seq,
        min(t.stands_at) FILTER (
            WHERE coalesce(t.replacement, t.event) = 'hand collected') AS collected_seq,
        arg_min(t.occurred_at, t.stands_at) FILTER (
            WHERE coalesce(t.replacement, t.event) = 'hand collected') AS collected_at
    FROM timeline AS t
    SEMI JOIN hits USING (casino, table_id, round_id, seat)
    WHERE t.stands_at IS NOT NULL
    GROUP BY t.casino, t.table_id, t.round_id, t.seat
)
SELECT
    casino,
    table_id,
    round_id,
    seat,
    'progressive' AS wager,
    'seat ' || seat || '''s jackpot hand was collected (table_seq ' || collected_seq || ', '
        || strftime(collected_at, '%Y-%m-%dT%H:%M:%S.%fZ') || ') before the jackpot was paid ('
        || CASE WHEN step_seq IS NOT NULL THEN 'the paid step, table_seq ' || step_seq
                ELSE 'its Progressive wager settled, table_seq ' || settled_seq END
        || ')' AS detail
FROM marks
WHERE collected_seq < coalesce(step_seq, settled_seq)
ORDER BY casino, table_id, round_id, seat
