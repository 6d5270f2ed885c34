-- id: peer_outlier
-- title: Dealer or table an outlier against its peers (error rate, net mispay per round, or hold)
-- severity: medium
-- kind: statistical
-- params: min_rounds=200, min_peers=5, threshold=3.5
-- rule: surveillance, not a rule of play: the casino's surveillance department and internal controls (58 Pa. Code § 465a.9 and § 465a.2); the method (each unit against the pooled rate of its peers, in standard errors) is in docs/checks.md "Statistical surveillance"
-- next: a lead, not a finding: open the dealer's or the table's rounds on the dashboard (Dealers and tables), review the flagged rounds and the video of a sample of the others, and compare with the shift's other dealers before drawing any conclusion
-- catches: none
-- Offending rows: per casino and game, every dealer and every table with at least
-- $min_rounds judged rounds, among at least $min_peers such units, whose
--   * error rate (share of judged rounds with a wager settled differently from the rules),
--   * net mispay per round (recorded minus expected, summed over the patrons' wagers), or
--   * hold (the house's win on the patrons' wagers over their amount wagered; the
--     Progressive wager is left out: it is paid from the meter, not the table's hold)
-- is more than $threshold standard errors from the pooled rate of its peers (all units of
-- the group, itself included). The standard error comes from the spread of single rounds
-- around the pooled rate, over every round of the group (a Bernoulli spread for the error
-- rate; the residual win - pooled hold x amount wagered for the hold), so a unit that
-- deals few rounds, or a game whose results swing widely, needs a larger difference to
-- stand out. An error rate is only an outlier upward; net mispay and hold both ways (a low
-- hold or a patron-favouring mispay is the classic sign of a dealer paying an accomplice;
-- a high one of short-paying). Ratios and scores are statistics in floating point, not
-- money: the money behind a lead is in its rule flags.
WITH units AS (
    -- each judged round's totals (replay writes them into rounds: wagered_cents,
    -- house_win_cents, mispay_cents, mispaid_wagers), once for its dealer, once for its table
    SELECT 'dealer' AS unit, casino, game, dealer_id AS who, mispaid_wagers, mispay_cents,
           house_win_cents, wagered_cents
    FROM rounds WHERE evaluated AND dealer_id IS NOT NULL
    UNION ALL
    SELECT 'table' AS unit, casino, game, table_id AS who, mispaid_wagers, mispay_cents,
           house_win_cents, wagered_cents
    FROM rounds WHERE evaluated
), unit_stats AS (
    -- sums and sums of squares, so that the spread of single rounds needs no second pass
    SELECT unit, casino, game, who, count(*) AS n,
           count(*) FILTER (WHERE mispaid_wagers > 0) AS k,
           sum(CAST(coalesce(mispay_cents, 0) AS HUGEINT)) AS m,
           sum(CAST(coalesce(house_win_cents, 0) AS HUGEINT)) AS h,
           sum(CAST(coalesce(wagered_cents, 0) AS HUGEINT)) AS a,
           sum(power(CAST(coalesce(mispay_cents, 0) AS DOUBLE), 2)) AS m2,
           sum(power(CAST(coalesce(house_win_cents, 0) AS DOUBLE), 2)) AS h2,
           sum(CAST(coalesce(house_win_cents, 0) AS DOUBLE)
               * CAST(coalesce(wagered_cents, 0) AS DOUBLE)) AS ha,
           sum(power(CAST(coalesce(wagered_cents, 0) AS DOUBLE), 2)) AS a2
    FROM units
    GROUP BY unit, casino, game, who
    HAVING count(*) >= $min_rounds
), eligible AS (
    SELECT *, count(*) OVER (PARTITION BY unit, casino, game) AS peers
    FROM unit_stats
), pooled AS (
    SELECT unit, casino, game, any_value(peers) AS peers,
           CAST(sum(k) AS DOUBLE) / sum(n) AS p,
           CAST(sum(m) AS DOUBLE) / sum(n) AS mu_m,
           CAST(sum(h) AS DOUBLE) / nullif(CAST(sum(a) AS DOUBLE), 0) AS mu_h
    FROM eligible
    WHERE peers >= $min_peers
    GROUP BY unit, casino, game
), spread AS (
    -- the variance of single rounds around the pooled rates, over the whole group:
    -- sum (x - mu)^2 = sum x^2 - 2 mu sum x + mu^2 n, and likewise for win - hold x wagered
    SELECT e.unit, e.casino, e.game,
           (sum(e.m2) - 2 * any_value(p.mu_m) * CAST(sum(e.m) AS DOUBLE)
            + power(any_value(p.mu_m), 2) * sum(e.n)) / sum(e.n) AS var_m,
           (sum(e.h2) - 2 * any_value(p.mu_h) * sum(e.ha)
            + power(any_value(p.mu_h), 2) * sum(e.a2)) / sum(e.n) AS var_h
    FROM eligible AS e
    JOIN pooled AS p USING (unit, casino, game)
    GROUP BY e.unit, e.casino, e.game
), scored AS (
    SELECT e.unit, e.casino, e.game, e.who, e.n, e.k, e.m, e.h, e.a, p.peers, p.p, p.mu_m,
           p.mu_h,
           (e.k - p.p * e.n) / nullif(sqrt(e.n * p.p * (1 - p.p)), 0) AS z_error,
           (CAST(e.m AS DOUBLE) - p.mu_m * e.n) / nullif(sqrt(s.var_m * e.n), 0) AS z_mispay,
           (CAST(e.h AS DOUBLE) - p.mu_h * CAST(e.a AS DOUBLE))
               / nullif(sqrt(s.var_h * e.n), 0) AS z_hold
    FROM eligible AS e
    JOIN pooled AS p USING (unit, casino, game)
    JOIN spread AS s USING (unit, casino, game)
), leads AS (
    SELECT *, 'error rate' AS metric, z_error AS z,
           printf('%.2f%%', 100.0 * k / n) AS mine, printf('%.2f%%', 100 * p) AS theirs
    FROM scored WHERE z_error > $threshold
    UNION ALL
    SELECT *, 'net mispay per round' AS metric, z_mispay AS z,
           printf('%.1f cents', CAST(m AS DOUBLE) / n) AS mine, printf('%.1f cents', mu_m)
    FROM scored WHERE abs(z_mispay) > $threshold
    UNION ALL
    SELECT *, 'hold' AS metric, z_hold AS z,
           printf('%.2f%%', 100 * CAST(h AS DOUBLE) / CAST(a AS DOUBLE)) AS mine,
           printf('%.2f%%', 100 * mu_h)
    FROM scored WHERE abs(z_hold) > $threshold
)
SELECT
    casino,
    CASE WHEN unit = 'table' THEN who END AS table_id,
    NULL::VARCHAR AS round_id,
    NULL::INTEGER AS seat,
    CASE WHEN unit = 'dealer' THEN who END AS dealer_id,
    game,
    unit || ' ' || who || ' (' || game || ', ' || n || ' judged rounds): ' || metric || ' '
        || mine || ' against the peers'' ' || theirs || ' (z ' || printf('%+.1f', z)
        || ', threshold ' || $threshold || ', ' || peers || ' ' || unit || 's); ' || k
        || ' rounds in error, net mispay ' || m || ' cents, house win ' || h || ' of ' || a
        || ' cents wagered' AS detail
FROM leads
ORDER BY casino, game, unit, who, metric
