-- id: jackpot_hand_declared
-- title: Jackpot declared for a hand class the posted progressive paytable does not know, or other than the class the seat's cards make
-- severity: high
-- rule: 58 Pa. Code § 688a.7(h)(3)(i)(B)(1) (the winning hand is verified before the payout); Caribbean stud rules 9.5, 9.6; docs/rules.md 6 (the posted progressive paytable), 6a.10, 8.7
-- next: pull the round's video and the floorperson's verification of the hand: read the seat's cards, correct the declared class, recompute the award (and where it is paid from) for the class the cards make, and have the table device's vendor fix a class name the paytable does not know
-- catches: none
-- Offending rows: every JackpotHit (jackpots.hand not null) whose declared class is not a
-- line of the judging ruleset's progressive paytable (jackpots.hand_known false: a name the
-- paytable does not know), or differs from the class the engine judged from the seat's
-- dealt cards (jackpots.judged_hand), or, in a judged round, is declared for cards that
-- make no class of the game (judged_hand null) or under a ruleset Catwalk does not know
-- (hand_known null). In a round not judged a class the engine could not tell (no cards,
-- no ruleset) is not_evaluated's, not this check's. recorded = the award; the money it
-- should have been is the award checks' (progressive_not_qualifying, jackpot_share_wrong).
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
        || '; the cards make ' || coalesce(j.judged_hand, 'no class of the game')
        || CASE WHEN j.judged_hand IS NOT NULL AND j.award_from_meter IS NULL
                THEN ', which wins no progressive award' ELSE '' END AS detail
FROM jackpots AS j
LEFT JOIN unjudged AS u
  ON u.casino = j.casino AND u.table_id = j.table_id AND u.round_id = j.round_id
WHERE j.hand IS NOT NULL
  AND (NOT j.hand_known
       OR j.judged_hand <> j.hand
       OR (u.round_id IS NULL AND (j.judged_hand IS NULL OR j.hand_known IS NULL)))
ORDER BY j.casino, j.table_id, j.round_id, j.seat
