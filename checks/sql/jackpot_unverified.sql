-- id: jackpot_unverified
-- title: Progressive payout without every verification step (hand verified, light, floorperson validation, payment, documentation), or validated by someone below floorperson
-- severity: high
-- rule: 58 Pa. Code § 688a.7(h)(3)(i)(B)(1)-(4); Caribbean stud rules 9.5 and 9.6
-- next: get the floorperson to complete the missing verification steps and paperwork now; if the hand cannot be verified, hold the award and notify surveillance and compliance
-- catches: jackpot_step_missing
SELECT
    j.casino,
    j.round_id,
    j.table_id,
    j.seat,
    'progressive' AS wager,
    j.recorded_award_cents AS recorded_cents,
    'jackpot at seat ' || j.seat || ': '
        || concat_ws(', ',
             CASE WHEN NOT j.hand_verified THEN 'hand not verified' END,
             CASE WHEN NOT j.light_illuminated THEN 'progressive light not verified' END,
             CASE WHEN NOT j.validated THEN 'not validated' END,
             CASE WHEN j.validated AND j.validator_role NOT IN ('floorperson', 'pit_manager', 'shift_manager', 'casino_manager')
                  THEN 'validated by ' || j.validated_by || ' (' || j.validator_role || '), not a floorperson or above' END,
             CASE WHEN NOT j.paid THEN 'payment not recorded' END,
             CASE WHEN NOT j.documented THEN 'paperwork not complete' END) AS detail
FROM jackpots AS j
WHERE NOT (j.hand_verified AND j.light_illuminated AND j.validated AND j.paid AND j.documented)
   OR j.validator_role NOT IN ('floorperson', 'pit_manager', 'shift_manager', 'casino_manager')
ORDER BY j.casino, j.table_id, j.round_id, j.seat
