-- id: jackpot_hand_declared
-- title: Jackpot declared for a hand class the posted progressive paytable does not know, or other than the class the seat's cards make
-- severity: high
-- rule: 58 Pa. Code § 688a.7(h)(3)(i)(B)(1) (the winning hand is verified before the payout); Caribbean stud rules 9.5, 9.6; docs/rules.md 6 (the posted progressive paytable), 6a.10, 8.7
-- next: pull the round's video and the floorperson's verification of the hand: read the seat's cards, correct the declared class, recompute the award (and where it is paid from) for the class the cards make, and have the table device's vendor fix a class name the paytable does not know
-- Offending rows: every JackpotHit (jackpots.hand not null) whose declared class is not a
-- line of the judging ruleset's progressive paytable (jackpots.hand_known not true: an
-- unknown name, or a ruleset Catwalk does not know), or differs from the class the engine
-- judged from the seat's dealt cards (jackpots.judged_hand; null when the cards make no
-- class or cannot be judged). Judged rounds or not: the declaration is the table's own word
-- and is compared with the cards it was dealt. recorded = the award; the money it should
-- have been is the award checks' (progressive_not_qualifying, jackpot_share_wrong).
SELECT
    j.casino,
    j.round_id,
    j.table_id,
    j.seat,
    'progressive' AS wager,
    j.recorded_award_cents AS recorded_cents,
    'seat ' || j.seat || ': jackpot declared as ' || j.hand
        || CASE WHEN j.hand_known IS NULL THEN ' (the judging ruleset is not known)'
                WHEN NOT j.hand_known THEN ', not a class of the posted progressive paytable'
                ELSE '' END
        || '; the cards make '
        || coalesce(j.judged_hand, 'no class the engine could judge')
        || CASE WHEN j.judged_hand IS NOT NULL AND j.award_from_meter IS NULL
                THEN ', which wins no progressive award' ELSE '' END AS detail
FROM jackpots AS j
WHERE j.hand IS NOT NULL
  AND (j.hand_known IS NOT TRUE OR j.judged_hand IS DISTINCT FROM j.hand)
ORDER BY j.casino, j.table_id, j.round_id, j.seat
