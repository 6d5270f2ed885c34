-- id: repeat_overpay_seat
-- title: One seat overpaid by the same dealer far more often than the dealer's other seats on one day (the collusion pattern)
-- severity: high
-- kind: statistical
-- params: min_overpays=3, max_p=0.001
-- rule: surveillance, not a rule of play: a dealer paying an accomplice shows as the same seat overpaid by the same dealer, round after round (58 Pa. Code § 465a.9 (surveillance system and department) and the internal control systems of § 465a.2); see docs/checks.md "Statistical surveillance"
-- next: a lead, not a finding: watch the video of every round listed and the seat's patron (the log names seats, not patrons: identify them from the rated play or the video); if the pattern holds, remove the dealer from the game and refer it to the surveillance manager
-- catches: none
-- Offending rows: per casino, table, dealer and UTC day, a seat overpaid (its wagers of a
-- judged round settled for more than the rules require) in at least $min_overpays rounds,
-- when so many of the dealer's overpaid seat-rounds falling on that seat is unlikely by
-- chance: if the dealer's D overpaid seat-rounds that day fell on the seats in proportion
-- to the rounds each seat played (q for this one), the probability of X or more on this
-- seat, the binomial tail sum over j >= X of C(D, j) q^j (1 - q)^(D - j), is below $max_p.
-- An honest dealer's errors spread over the seats; an accomplice's overpayments do not.
-- The log names seats, not patrons: a seat under one dealer on one day stands for the
-- patron sitting there. recorded/expected are the seat's totals over its mispaid wagers of
-- the overpaid rounds, so the amount at stake is what the seat was overpaid in all.
WITH seat_rounds AS (
    -- overpaid seat-rounds: only wagers settled outside their lawful range can make one,
    -- and a seat-round is overpaid when its wagers were paid more than the most the rules
    -- allow (the highest lawful net, docs/rules.md 6a.19)
    SELECT
        w.casino, w.table_id, w.seat, w.dealer_id, CAST(w.dealt_at AS DATE) AS day,
        w.round_id,
        sum(CAST(w.recorded_net_cents AS HUGEINT)) AS recorded,
        sum(CAST(w.expected_net_max_cents AS HUGEINT)) AS expected
    FROM wager_exceptions AS w
    ANTI JOIN unjudged AS u USING (casino, table_id, round_id)
    WHERE w.seat IS NOT NULL
      AND w.dealer_id IS NOT NULL
      AND w.recorded_net_cents IS NOT NULL
      AND w.expected_net_cents IS NOT NULL
    GROUP BY w.casino, w.table_id, w.seat, w.dealer_id, day, w.round_id
    HAVING sum(CAST(w.recorded_net_cents AS HUGEINT))
         > sum(CAST(w.expected_net_max_cents AS HUGEINT))
), overpaid AS (
    SELECT casino, table_id, dealer_id, day, seat, count(*) AS x,
           sum(recorded) AS recorded, sum(expected) AS expected,
           string_agg(round_id, ', ' ORDER BY round_id) AS overpaid_rounds
    FROM seat_rounds
    GROUP BY casino, table_id, dealer_id, day, seat
), dealer_days AS (
    -- the dealer-days with a seat overpaid often enough to be worth scoring
    SELECT casino, table_id, dealer_id, day, CAST(sum(x) AS BIGINT) AS d
    FROM overpaid
    GROUP BY casino, table_id, dealer_id, day
    HAVING max(x) >= $min_overpays
), played AS (
    -- the judged rounds each seat played under those dealers on those days
    SELECT w.casino, w.table_id, w.dealer_id, CAST(w.dealt_at AS DATE) AS day, w.seat,
           count(DISTINCT w.round_id) AS played
    FROM wagers AS w
    SEMI JOIN dealer_days AS dd USING (casino, table_id, dealer_id)
    ANTI JOIN unjudged AS u USING (casino, table_id, round_id)
    WHERE w.seat IS NOT NULL
    GROUP BY w.casino, w.table_id, w.dealer_id, day, w.seat
), candidates AS (
    SELECT o.*, dd.d, p.played,
           CAST(sum(p.played) OVER (PARTITION BY p.casino, p.table_id, p.dealer_id, p.day)
                AS BIGINT) AS seat_rounds,
           CAST(p.played AS DOUBLE)
               / sum(p.played) OVER (PARTITION BY p.casino, p.table_id, p.dealer_id, p.day)
               AS q
    FROM played AS p
    JOIN dealer_days AS dd USING (casino, table_id, dealer_id, day)
    LEFT JOIN overpaid AS o USING (casino, table_id, dealer_id, day, seat)
    QUALIFY o.x >= $min_overpays
), tails AS (
    SELECT c.casino, c.table_id, c.dealer_id, c.day, c.seat,
           sum(CASE WHEN c.q >= 1 THEN CASE WHEN j = c.d THEN 1.0 ELSE 0.0 END
                    ELSE exp(lgamma(c.d + 1) - lgamma(j + 1) - lgamma(c.d - j + 1)
                             + j * ln(c.q) + (c.d - j) * ln(1 - c.q)) END) AS p_value
    FROM candidates AS c, range(c.x, c.d + 1) AS t(j)
    GROUP BY c.casino, c.table_id, c.dealer_id, c.day, c.seat
)
SELECT
    c.casino,
    c.table_id,
    NULL::VARCHAR AS round_id,
    c.seat,
    c.dealer_id,
    CASE WHEN abs(c.recorded) <= 9223372036854775807 THEN CAST(c.recorded AS BIGINT) END
        AS recorded_cents,
    CASE WHEN abs(c.expected) <= 9223372036854775807 THEN CAST(c.expected AS BIGINT) END
        AS expected_cents,
    'seat ' || c.seat || ' at table ' || c.table_id || ' overpaid in ' || c.x || ' of the '
        || c.d || ' overpaid seat-rounds of dealer ' || c.dealer_id || ' on '
        || CAST(c.day AS VARCHAR) || ', though it played ' || c.played || ' of the '
        || c.seat_rounds || ' seat-rounds (chance ' || printf('%.2g', t.p_value)
        || ', threshold ' || $max_p || '): ' || CAST(c.recorded - c.expected AS VARCHAR)
        || ' cents in all; rounds ' || c.overpaid_rounds AS detail
FROM candidates AS c
JOIN tails AS t USING (casino, table_id, dealer_id, day, seat)
WHERE t.p_value < $max_p
ORDER BY c.casino, c.table_id, c.seat, c.dealer_id, c.day
