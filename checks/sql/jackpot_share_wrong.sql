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
WITH shared AS (
    SELECT j.casino, j.table_id, j.round_id, count(*) AS awards
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
    'seat ' || j.seat || ' ' || coalesce(j.judged_hand, '?') || ': awarded ' || j.recorded_award_cents
        || ' cents of the meter ' || coalesce(CAST(j.progressive_meter_cents AS VARCHAR), '?')
        || ' in a round of ' || s.awards || ' percentage awards; its share is '
        || CASE WHEN lawful.low = lawful.high THEN CAST(lawful.low AS VARCHAR)
                ELSE lawful.low || ' to ' || lawful.high END || ' cents'
        || CASE WHEN settled_wrong
                THEN '; the wager was settled at ' || w.recorded_net_cents
                     || ' cents, counted by the wager''s check'
                ELSE '' END AS detail
FROM jackpots AS j
JOIN shared AS s USING (casino, table_id, round_id)
ANTI JOIN unjudged AS u USING (casino, table_id, round_id)
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
WHERE j.award_from_meter
  AND j.recorded_award_cents > 0
  AND j.expected_net_cents > 0
  AND j.recorded_award_cents NOT BETWEEN lawful.low AND lawful.high
ORDER BY j.casino, j.table_id, j.round_id, j.seat
