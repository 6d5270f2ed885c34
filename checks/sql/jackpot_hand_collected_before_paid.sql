-- id: jackpot_hand_collected_before_paid
-- title: A progressive jackpot hand collected before the jackpot was paid, or, paid from the meter, before its documentation was completed
-- severity: high
-- rule: 58 Pa. Code § 688a.7(h)(3)(i)(B)(1)-(4) (the winning hand verified, the light verified, the payout validated and paid, the cards of the player remaining on the table; a payout not paid from the table inventory: the cards remaining on the table until the necessary documentation has been completed); Caribbean stud rule 9.5 (the cards of a hand qualifying for a progressive jackpot are left face up and not collected or discarded until the pay out on the hand has been made)
-- next: hold the award until the hand is verified from the video and the table device's record of the dealt cards (the cards are no longer on the table to verify); have the floorperson document why the hand was collected, and report it to surveillance and compliance
-- catches: jackpot_hand_collected_early
-- Facts: the order of events within the round (the timeline, by table_seq; occurred_at is
-- shown, never used to order), of rounds recorded under schema id 3 (rounds.vocabulary >=
-- 3), the only vocabulary with a HandCollected event. A seat with a JackpotHit; its payment
-- is the JackpotVerified step 'paid' when one is recorded for the seat (the payout, as
-- jackpot_unverified reads it), otherwise the seat's winning Progressive WagerSettled; its
-- documentation is the JackpotVerified step 'documented'; where it was paid from is
-- jackpots.paid_from (the 'paid' step's paid_from). The wait for the documentation is
-- § 688a.7's, Face Up pai gow poker's: in the other games (Caribbean stud rule 9.5 asks only
-- that the hand stay until paid) it is not required, so not judged.
-- Offending rows: one per such seat whose first HandCollected comes before that payment,
-- or, when the payout was paid from the meter (paid_from 'meter': not the table
-- inventory), before the first 'documented' step.
-- Lawful: the hand collected after its payment (and after its documentation, when paid
-- from the meter); a payout paid from the table inventory, or whose paid_from is not
-- recorded, collected after its payment and before its documentation (the wait for the
-- documentation is required only of a payout not paid from the table inventory); other
-- seats' (or the dealer's) cards collected while the jackpot hand waits. A seat with
-- neither a paid step nor a winning Progressive settlement is not judged on the payment,
-- and a payout paid from the meter with no 'documented' step is not judged on the
-- documentation: jackpot_unverified flags the missing step ('payment not recorded',
-- 'paperwork not complete'), and this check judges only the order, so one missing step is
-- not flagged twice. A seat whose collection is not recorded is not judged; a round under
-- an older vocabulary is not evaluated (checks/reports/vocabulary_unjudged.sql). The steps
-- are read from the timeline's words (replay/timeline.py: 'seat N jackpot: paid by ...',
-- 'seat N jackpot: documented by ...'), since the timeline has no typed column for them;
-- a corrected event stands where the event it corrects stood.
WITH judged AS (
    SELECT casino, table_id, round_id, game FROM rounds WHERE vocabulary >= 3
), hits AS (
    SELECT DISTINCT casino, table_id, round_id, seat
    FROM play
    SEMI JOIN judged USING (casino, table_id, round_id)
    WHERE event = 'jackpot hit' AND seat IS NOT NULL
), sources AS (
    SELECT h.casino, h.table_id, h.round_id, h.seat,
        bool_or(j.paid_from = 'meter') AND any_value(g.game) = 'face_up_pai_gow' AS from_meter
    FROM hits AS h
    JOIN judged AS g USING (casino, table_id, round_id)
    LEFT JOIN jackpots AS j USING (casino, table_id, round_id, seat)
    GROUP BY h.casino, h.table_id, h.round_id, h.seat
), marks AS (
    SELECT t.casino, t.table_id, t.round_id, t.seat,
        min(t.stands_at) FILTER (
            WHERE coalesce(t.replacement, t.event) = 'jackpot step recorded'
              AND regexp_matches(t.summary, '(^|: )seat \d+ jackpot: documented by '))
            AS documented_seq,
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
    m.casino,
    m.table_id,
    m.round_id,
    m.seat,
    'progressive' AS wager,
    'seat ' || m.seat || '''s jackpot hand was collected (table_seq ' || m.collected_seq || ', '
        || strftime(m.collected_at, '%Y-%m-%dT%H:%M:%S.%fZ') || ') '
        || CASE WHEN m.collected_seq < coalesce(m.step_seq, m.settled_seq)
                THEN 'before the jackpot was paid ('
                     || CASE WHEN m.step_seq IS NOT NULL THEN 'the paid step, table_seq ' || m.step_seq
                             ELSE 'its Progressive wager settled, table_seq ' || m.settled_seq END
                     || ')'
                ELSE 'before the documentation of its payout, paid from the meter and not the '
                     || 'table inventory, was completed (the documented step, table_seq '
                     || m.documented_seq || ')' END AS detail
FROM marks AS m
JOIN sources AS s USING (casino, table_id, round_id, seat)
WHERE m.collected_seq < coalesce(m.step_seq, m.settled_seq)
   OR (s.from_meter AND m.collected_seq < m.documented_seq)
ORDER BY m.casino, m.table_id, m.round_id, m.seat
