-- jackpot_award_exceptions: every jackpot of a judged round whose seat's Progressive wager
-- the rules make a win (jackpots.expected_net_cents above 0) and whose recorded award lies
-- outside the lawful award of the class the engine judged: award_low_cents to
-- award_high_cents, the Progressive wager's expected_net_min_cents to expected_net_max_cents
-- in wagers (docs/rules.md 6a.13, 6a.19; the point jackpots.expected_net_cents where no
-- range). With it: meter_awards, how many percentage-of-meter awards above 0 the round
-- records when there are two or more (null otherwise: jackpot_share_wrong reads those
-- rounds, jackpot_award_wrong the others); settled_wrong, whether the seat's Progressive
-- wager was itself settled for a net outside its range (the wager's check counts that
-- money), and that net (wrong_net_cents); settled_net_cents, the wager's recorded net.
WITH shared AS (
    SELECT j.casino, j.table_id, j.round_id, count(*) AS awards
    FROM jackpots AS j
    WHERE j.award_from_meter AND j.recorded_award_cents > 0
    GROUP BY ALL
    HAVING count(*) >= 2
)
SELECT
    j.*,
    s.awards AS meter_awards,
    lawful.low AS award_low_cents,
    lawful.high AS award_high_cents,
    settled_wrong,
    w.recorded_net_cents AS wrong_net_cents,
    pw.recorded_net_cents AS settled_net_cents
FROM jackpots AS j
ANTI JOIN unjudged AS u USING (casino, table_id, round_id)
LEFT JOIN shared AS s USING (casino, table_id, round_id)
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
WHERE j.expected_net_cents > 0
  AND j.recorded_award_cents NOT BETWEEN lawful.low AND lawful.high
