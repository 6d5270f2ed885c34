-- id: jackpot_award_wrong
-- title: Jackpot recorded for the wrong award: a winning hand's declared award (JackpotHit) outside the lawful award of the class the cards make
-- severity: high
-- rule: 58 Pa. Code § 688a.7(h)(3) (a winning Progressive Payout Wager is paid the posted award: a fixed sum, or a percentage of the meter), (h)(3)(i)(B)(1)-(4) (the payout verified and documented); Caribbean stud rules 9.5, 9.6 (a hand qualifying for a progressive jackpot is settled by the posted payout); docs/rules.md 6a.10, 6a.12 (the award is the posted one, not a multiple of the wager), 6a.13, 6a.19 (a percentage of the meter from its rounding down to its rounding up), 8.7
-- next: read the progressive controller's log and the jackpot paperwork against the video: which amount was paid, the award declared or the Progressive wager's settlement; correct the jackpot record (EventCorrected), recover or pay the difference, and reconcile the progressive meter's reset with the award really paid
-- catches: none
-- Offending rows: every JackpotHit of a judged round for a seat whose Progressive wager the
-- rules make a win (jackpots.expected_net_cents above 0), whose declared award
-- (jackpots.recorded_award_cents) lies outside the lawful award of the class the engine
-- judged from the seat's cards: the Progressive wager's expected_net_min_cents to
-- expected_net_max_cents in wagers (docs/rules.md 6a.19; the point jackpots.expected_net_cents
-- where no range). The award is the table's record of the jackpot, beside the money of the
-- Progressive wager's settlement (WagerSettled): the overpay and underpay checks judge the
-- settlement, and no check judged the award of a single winner before this one. Left to
-- their own checks: an award for a hand that does not win (progressive_not_qualifying), two
-- or more percentage-of-meter awards of one round (jackpot_share_wrong, which shares the
-- meter), a declared class other than the judged one (jackpot_hand_declared: this check
-- judges the amount, whatever class was declared). recorded = the award, expected = the
-- nearer end of the lawful award; but when the seat's Progressive wager was itself settled
-- for a net outside its range, the wager's check already counts that money, and the flag
-- here carries no amounts (the money once).
-- The rows are read from jackpot_award_exceptions (checks/sql/_views/), which jackpot_share_wrong
-- reads too: the lawful award and the settlement of the seat's wager computed once.
SELECT
    j.casino,
    j.round_id,
    j.table_id,
    j.seat,
    'progressive' AS wager,
    CASE WHEN NOT j.settled_wrong THEN j.recorded_award_cents END AS recorded_cents,
    CASE WHEN NOT j.settled_wrong
         THEN CASE WHEN j.recorded_award_cents < j.award_low_cents THEN j.award_low_cents
                   ELSE j.award_high_cents END
    END AS expected_cents,
    'seat ' || j.seat || ': jackpot declared ' || coalesce(j.hand, '?') || ' for '
        || j.recorded_award_cents || ' cents; the cards make '
        || coalesce(j.judged_hand, '?') || ', whose award is '
        || CASE WHEN j.award_low_cents = j.award_high_cents THEN CAST(j.award_low_cents AS VARCHAR)
                ELSE j.award_low_cents || ' to ' || j.award_high_cents END || ' cents'
        || CASE WHEN j.award_from_meter
                THEN ' of the meter ' || coalesce(CAST(j.progressive_meter_cents AS VARCHAR), '?')
                ELSE '' END
        || CASE WHEN j.settled_wrong
                THEN '; the wager was settled at ' || j.wrong_net_cents
                     || ' cents, counted by the wager''s check'
                ELSE '; the wager was settled at ' || coalesce(CAST(j.settled_net_cents
                                                                    AS VARCHAR), '?')
                     || ' cents' END AS detail
FROM jackpot_award_exceptions AS j
WHERE j.meter_awards IS NULL
ORDER BY j.casino, j.table_id, j.round_id, j.seat
