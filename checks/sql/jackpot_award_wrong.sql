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
WITH shared AS (
    SELECT j.casino, j.table_id, j.round_id
    FROM jackpots AS j
    WHERE j.award_from_meter AND j.recorded_award_cents > 0
    GROUP BY ALL
    HAVING count(*) >= 2
)
SELECT
    j.casino,
    j.round_id,
    j.table_id,
    j.seat,
    'progressive' AS wager,
    CASE WHEN NOT settled_wrong THEN j.recorded_award_cents END AS recorded_cents,
    CASE WHEN NOT settled_wrong
         THEN CASE WHEN j.recorded_award_cents < lawful.low THEN lawful.low ELSE lawful.high END
    END AS expected_cents,
    'seat ' || j.seat || ': jackpot declared ' || coalesce(j.hand, '?') || ' for '
        || j.recorded_award_cents || ' cents; the cards make '
        || coalesce(j.judged_hand, '?') || ', whose award is '
        || CASE WHEN lawful.low = lawful.high THEN CAST(lawful.low AS VARCHAR)
                ELSE lawful.low || ' to ' || lawful.high END || ' cents'
        || CASE WHEN j.award_from_meter
                THEN ' of the meter ' || coalesce(CAST(j.progressive_meter_cents AS VARCHAR), '?')
                ELSE '' END
        || CASE WHEN settled_wrong
                THEN '; the wager was settled at ' || w.recorded_net_cents
                     || ' cents, counted by the wager''s check'
                ELSE '; the wager was settled at ' || coalesce(CAST(pw.recorded_net_cents
                                                                    AS VARCHAR), '?')
                     || ' cents' END AS detail
FROM jackpots AS j
ANTI JOIN unjudged AS u USING (casino, table_id, round_id)
ANTI JOIN shared AS s USING (casino, table_id, round_id)
LEFT JOIN wager_exceptions AS w
  ON w.casino = j.casino AND w.table_id = j.table_id AND w.round_id = j.round_id
 AND w.seat = j.seat AND w.wager = 'progressive'
LEFT JOIN wagers AS pw
  ON pw.casino = j.casino AND pw.table_id = j.table_id AND pw.round_id = j.round_id
 AND pw.seat = j.seat AND pw.wager = 'progressive',
LATERAL (SELECT coalesce(pw.expected_net_min_cents, j.expected_net_cents) AS low,
                coalesce(pw.expected_net_max_cents, j.expected_net_cents) AS high) AS lawful,
LATERAL (SELECT coalesce(w.recorded_net_cents NOT BETWEEN w.expected_net_min_cents
                                                    AND w.expected_net_max_cents, false)
                AS settled_wrong)
WHERE j.recorded_award_cents IS NOT NULL
  AND j.expected_net_cents > 0
  AND j.recorded_award_cents NOT BETWEEN lawful.low AND lawful.high
ORDER BY j.casino, j.table_id, j.round_id, j.seat
