-- id: repeat_overpay_patron
-- title: One patron overpaid by the same dealer far more often than the dealer's other players on one day, at whatever seat or table (the collusion pattern)
-- severity: high
-- kind: statistical
-- params: min_overpays=3, max_p=0.001
-- rule: surveillance, not a rule of play: a dealer paying an accomplice shows as the same patron overpaid by the same dealer, round after round, even when the accomplice changes seats or follows the dealer to another table (58 Pa. Code § 465a.9 (surveillance system and department) and the internal control systems of § 465a.2); see docs/checks.md "Statistical surveillance"
-- next: a lead, not a finding: watch the video of every round listed with the patron's rated play (the patron's tracking id is in the detail); if the pattern holds, remove the dealer from the game and refer the dealer and the patron to the surveillance manager
-- catches: none
-- repeat_overpay_seat's test, with the patron (wagers.patron_id, schema id 3's
-- WagerPlaced.patron_id) in place of the seat, across the seats and tables the dealer
-- dealt that day. Offending rows: per casino, dealer, UTC day and patron, a patron overpaid
-- (the patron's wagers of a judged round settled for more than the rules require) in at
-- least $min_overpays rounds, when so many of the dealer's overpaid seat-rounds that day
-- (every seat's, named by a patron or not) falling on that patron is unlikely by chance:
-- if they fell on the players in proportion to the rounds each played (q for this patron:
-- the patron's rounds over all the dealer's seat-rounds that day), the probability of X
-- or more on this patron, the binomial tail sum over j >= X of C(D, j) q^j (1 - q)^(D -
-- j), is below $max_p. A wager without a patron id is no patron's (it counts in D and in
-- the seat-rounds, never for a patron): under an older vocabulary this check finds nothing
-- and repeat_overpay_seat stands alone. table_id is the table when the patron's overpaid
-- rounds were all at one, else null (the detail names the tables); recorded/expected are
-- the patron's totals over the mispaid wagers of the overpaid rounds.
WITH seat_rounds AS (
    -- every overpaid seat-round of a judged round, as in repeat_overpay_seat, with the
    -- patron who placed the wagers (null: none named)
    SELECT
        w.casino, w.table_id, w.seat, w.dealer_id, CAST(w.dealt_at AS DATE) AS day,
        w.round_id, min(w.patron_id) AS patron_id,
        count(DISTINCT w.patron_id) AS patrons,
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
), dealer_overpaid AS (
    SELECT casino, dealer_id, day, CAST(count(*) AS BIGINT) AS d
    FROM seat_rounds
    GROUP BY casino, dealer_id, day
), overpaid AS (
    -- a seat-round's patron: the one patron id on its wagers
    SELECT casino, dealer_id, day, patron_id, count(*) AS x,
           sum(recorded) AS recorded, sum(expected) AS expected,
           string_agg(round_id, ', ' ORDER BY round_id) AS overpaid_rounds,
           array_to_string(list_sort(list(DISTINCT table_id)), ', ') AS tables,
           CASE WHEN count(DISTINCT table_id) = 1 THEN min(table_id) END AS table_id
    FROM seat_rounds
    WHERE patron_id IS NOT NULL AND patrons = 1
    GROUP BY casino, dealer_id, day, patron_id
    HAVING count(*) >= $min_overpays
), played AS (
    -- the judged seat-rounds each dealer dealt on those days, and each patron's rounds
    SELECT w.casino, w.dealer_id, CAST(w.dealt_at AS DATE) AS day,
           count(DISTINCT (w.table_id, w.round_id, w.seat)) AS seat_rounds
    FROM wagers AS w
    SEMI JOIN overpaid AS o USING (casino, dealer_id)
    ANTI JOIN unjudged AS u USING (casino, table_id, round_id)
    WHERE w.seat IS NOT NULL
    GROUP BY w.casino, w.dealer_id, day
), patron_played AS (
    SELECT w.casino, w.dealer_id, CAST(w.dealt_at AS DATE) AS day, w.patron_id,
           count(DISTINCT (w.table_id, w.round_id)) AS played
    FROM wagers AS w
    SEMI JOIN overpaid AS o USING (casino, dealer_id, patron_id)
    ANTI JOIN unjudged AS u USING (casino, table_id, round_id)
    WHERE w.seat IS NOT NULL
    GROUP BY w.casino, w.dealer_id, day, w.patron_id
), candidates AS (
    SELECT o.*, dd.d, pp.played, p.seat_rounds,
           CAST(pp.played AS DOUBLE) / p.seat_rounds AS q
    FROM overpaid AS o
    JOIN dealer_overpaid AS dd USING (casino, dealer_id, day)
    JOIN played AS p USING (casino, dealer_id, day)
    JOIN patron_played AS pp USING (casino, dealer_id, day, patron_id)
), tails AS (
    SELECT c.casino, c.dealer_id, c.day, c.patron_id,
           sum(CASE WHEN c.q >= 1 THEN CASE WHEN j = c.d THEN 1.0 ELSE 0.0 END
                    ELSE exp(lgamma(c.d + 1) - lgamma(j + 1) - lgamma(c.d - j + 1)
                             + j * ln(c.q) + (c.d - j) * ln(1 - c.q)) END) AS p_value
    FROM candidates AS c, range(c.x, c.d + 1) AS t(j)
    GROUP BY c.casino, c.dealer_id, c.day, c.patron_id
)
SELECT
    c.casino,
    c.table_id,
    NULL::VARCHAR AS round_id,
    NULL::INTEGER AS seat,
    c.dealer_id,
    CASE WHEN abs(c.recorded) <= 9223372036854775807 THEN CAST(c.recorded AS BIGINT) END
        AS recorded_cents,
    CASE WHEN abs(c.expected) <= 9223372036854775807 THEN CAST(c.expected AS BIGINT) END
        AS expected_cents,
    'patron ' || c.patron_id || ' overpaid in ' || c.x || ' of the ' || c.d
        || ' overpaid seat-rounds of dealer ' || c.dealer_id || ' on '
        || CAST(c.day AS VARCHAR) || ' at ' || c.tables || ', though the patron played '
        || c.played || ' of the ' || c.seat_rounds || ' seat-rounds (chance '
        || printf('%.2g', t.p_value) || ', threshold ' || $max_p || '): '
        || CAST(c.recorded - c.expected AS VARCHAR) || ' cents in all; rounds '
        || c.overpaid_rounds AS detail
FROM candidates AS c
JOIN tails AS t USING (casino, dealer_id, day, patron_id)
WHERE t.p_value < $max_p
ORDER BY c.casino, c.patron_id, c.dealer_id, c.day
