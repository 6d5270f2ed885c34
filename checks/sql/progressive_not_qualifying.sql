-- id: progressive_not_qualifying
-- title: Progressive award recorded for a hand that does not win the progressive (or for a seat without a Progressive wager)
-- severity: high
-- rule: 58 Pa. Code § 688a.7(h)(3) (the Progressive Payout Wager loses without a qualifying hand, full house or better on the posted progressive paytable); Caribbean stud rules 9.5, 9.6 (a hand that wins the progressive jackpot as rule 11.7 lists); docs/rules.md 2.2, 4.2, 6a.10, 6a.12
-- next: pull the round's video and the floorperson's verification of the hand: if the hand does not qualify, hold or recover the award, restore the progressive meter and report it to surveillance and compliance
-- catches: none
-- Offending rows: every progressive award recorded (JackpotHit, jackpots.recorded_award_cents
-- above 0) in a judged round for a seat whose Progressive wager the rules do not make a win
-- (jackpots.expected_net_cents 0 or below), or that holds no Progressive wager at all (no
-- expected settlement). recorded = the award, expected = 0; but when the seat's Progressive
-- wager was itself settled for a different net than the rules require, the wager's check
-- already counts that money, and the flag here carries no amounts (the money once).
SELECT
    j.casino,
    j.round_id,
    j.table_id,
    j.seat,
    'progressive' AS wager,
    CASE WHEN NOT settled_wrong THEN j.recorded_award_cents END AS recorded_cents,
    CASE WHEN NOT settled_wrong THEN 0::BIGINT END AS expected_cents,
    'seat ' || j.seat || ': a progressive award of ' || j.recorded_award_cents
        || ' cents recorded for ' || coalesce(j.hand, 'an unnamed hand') || ', but '
        || CASE WHEN j.expected_net_cents IS NULL THEN 'the seat holds no Progressive wager'
                ELSE 'its Progressive wager does not win (the rules settle it at '
                     || j.expected_net_cents || ' cents)' END
        || CASE WHEN settled_wrong
                THEN '; the wager was settled at ' || w.recorded_net_cents
                     || ' cents, counted by the wager''s check'
                ELSE '' END AS detail
FROM jackpots AS j
ANTI JOIN unjudged AS u USING (casino, table_id, round_id)
LEFT JOIN wager_exceptions AS w
  ON w.casino = j.casino AND w.table_id = j.table_id AND w.round_id = j.round_id
 AND w.seat = j.seat AND w.wager = 'progressive',
LATERAL (SELECT coalesce(w.recorded_net_cents NOT BETWEEN w.expected_net_min_cents
                                                    AND w.expected_net_max_cents, false)
                AS settled_wrong)
WHERE j.recorded_award_cents > 0
  AND coalesce(j.expected_net_cents, 0) <= 0
ORDER BY j.casino, j.table_id, j.round_id, j.seat
