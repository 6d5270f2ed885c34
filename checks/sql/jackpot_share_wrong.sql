-- id: jackpot_share_wrong
-- title: Two or more percentage-of-meter awards in one round that do not share the meter as the rules say
-- severity: high
-- rule: 58 Pa. Code § 688a.7(h)(3) (the progressive is paid at the posted odds); docs/rules.md 6a.13 (a percentage award is the meter times the percentage from that round's meter, rounded down to the cent, shared equally, each share rounded down, among the seats that won the same percentage award in the round), 4.2 ("two royals in one round share the meter")
-- next: recompute each winner's share from the round's meter reading with the floorperson; recover an overpaid share or pay the shortfall, and correct the progressive meter
-- catches: none
-- Offending rows: in a judged round with two or more percentage-of-meter awards recorded
-- (jackpots.award_from_meter, of the class the engine judged: jackpots.judged_hand;
-- recorded_award_cents above 0), every such award outside the lawful range of the seat's
-- share (the progressive wager's expected_net_min_cents to expected_net_max_cents in
-- wagers: the percentage rounded down and the share rounded down, up to both rounded up,
-- since the texts say neither who takes the odd cents nor how the percentage is rounded:
-- docs/rules.md 6a.13, 6a.19; the point jackpots.expected_net_cents where no range). An award for a hand that does not win is progressive_not_qualifying's. recorded =
-- the award, expected = the share; but when the seat's Progressive wager was itself settled
-- for a different net than the rules require, the wager's check already counts that money,
-- and the flag here carries no amounts (the money once).
-- The rows are read from jackpot_award_exceptions (checks/sql/_views/), which jackpot_award_wrong
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
    'seat ' || j.seat || ' ' || coalesce(j.judged_hand, '?') || ': awarded ' || j.recorded_award_cents
        || ' cents of the meter ' || coalesce(CAST(j.progressive_meter_cents AS VARCHAR), '?')
        || ' in a round of ' || j.meter_awards || ' percentage awards; its share is '
        || CASE WHEN j.award_low_cents = j.award_high_cents THEN CAST(j.award_low_cents AS VARCHAR)
                ELSE j.award_low_cents || ' to ' || j.award_high_cents END || ' cents'
        || CASE WHEN j.settled_wrong
                THEN '; the wager was settled at ' || j.wrong_net_cents
                     || ' cents, counted by the wager''s check'
                ELSE '' END AS detail
FROM jackpot_award_exceptions AS j
WHERE j.meter_awards IS NOT NULL
  AND j.award_from_meter
  AND j.recorded_award_cents > 0
ORDER BY j.casino, j.table_id, j.round_id, j.seat
