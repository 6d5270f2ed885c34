-- id: peer_outlier
-- title: Dealer or table an outlier against its peers (error rate, net mispay per round, or hold)
-- severity: medium
-- kind: statistical
-- params: min_rounds=200, min_peers=5, threshold=3.5
-- rule: surveillance, not a rule of play: the casino's surveillance department and internal controls (58 Pa. Code § 465a.9 and § 465a.2); the method is the modified z-score of Iglewicz and Hoaglin (1993), see docs/checks.md "Statistical surveillance"
-- next: a lead, not a finding: open the dealer's or the table's rounds on the dashboard (Dealers and tables), review the flagged rounds and the video of a sample of the others, and compare with the shift's other dealers before drawing any conclusion
-- Offending rows: per casino and game, every dealer and every table with at least
-- $min_rounds judged rounds, among at least $min_peers such peers, whose
--   * error rate (share of judged rounds with a wager settled differently from the rules),
--   * net mispay per round (recorded minus expected, summed over the patrons' wagers), or
--   * hold (the house's win on the patrons' wagers over their amount wagered)
-- lies more than $threshold robust standard deviations from the peers' median: the
-- modified z-score 0.6745 (x - median) / MAD, or (x - median) / (1.253314 mean absolute
-- deviation) when more than half of the peers share the median (MAD = 0). An error rate is
-- only an outlier upward; net mispay and hold both ways (a low hold or a patron-favouring
-- mispay is the classic sign of a dealer paying an accomplice; a high one of short-paying).
-- Ratios are statistics, not money: the money behind a lead is in its rule flags.
WITH per_round AS (
    SELECT
        w.casino, w.game, w.table_id, w.dealer_id, w.round_id,
        bool_or(w.recorded_net_cents IS DISTINCT FROM w.expected_net_cents) AS in_error,
        sum(CAST(coalesce(w.recorded_net_cents, 0) AS HUGEINT) - w.expected_net_cents)
            FILTER (WHERE w.position <> 'banker') AS mispay_cents,
        -sum(CAST(coalesce(w.recorded_net_cents, 0) AS HUGEINT))
            FILTER (WHERE w.position <> 'banker') AS house_win_cents,
        sum(CAST(w.amount_cents AS HUGEINT)) FILTER (WHERE w.position <> 'banker')
            AS handle_cents
    FROM wagers AS w
    SEMI JOIN (SELECT casino, table_id, round_id FROM rounds WHERE evaluated) AS r
        USING (casino, table_id, round_id)
    WHERE w.expected_net_cents IS NOT NULL
    GROUP BY w.casino, w.game, w.table_id, w.dealer_id, w.round_id
), units AS (
    SELECT 'dealer' AS unit, casino, game, dealer_id AS who, * EXCLUDE (casino, game)
    FROM per_round WHERE dealer_id IS NOT NULL
    UNION ALL
    SELECT 'table' AS unit, casino, game, table_id AS who, * EXCLUDE (casino, game)
    FROM per_round
), stats AS (
    SELECT
        unit, casino, game, who, count(*) AS rounds,
        sum(CAST(in_error AS INTEGER)) AS rounds_in_error,
        coalesce(sum(mispay_cents), 0) AS net_mispay_cents,
        coalesce(sum(house_win_cents), 0) AS house_win_cents,
        coalesce(sum(handle_cents), 0) AS handle_cents
    FROM units
    GROUP BY unit, casino, game, who
    HAVING count(*) >= $min_rounds
), metrics AS (
    SELECT *, 'error rate' AS metric, rounds_in_error / rounds AS value FROM stats
    UNION ALL
    SELECT *, 'net mispay per round' AS metric,
           CAST(net_mispay_cents AS DOUBLE) / rounds AS value FROM stats
    UNION ALL
    SELECT *, 'hold' AS metric,
           CAST(house_win_cents AS DOUBLE) / handle_cents AS value FROM stats
    WHERE handle_cents > 0
), centre AS (
    SELECT unit, casino, game, metric, median(value) AS med, count(*) AS peers
    FROM metrics
    GROUP BY unit, casino, game, metric
    HAVING count(*) >= $min_peers
), spread AS (
    SELECT m.unit, m.casino, m.game, m.metric, c.med, c.peers,
           median(abs(m.value - c.med)) AS mad, avg(abs(m.value - c.med)) AS mean_ad
    FROM metrics AS m
    JOIN centre AS c USING (unit, casino, game, metric)
    GROUP BY m.unit, m.casino, m.game, m.metric, c.med, c.peers
), scored AS (
    SELECT m.*, s.med, s.peers,
           CASE WHEN s.mad > 0 THEN 0.6745 * (m.value - s.med) / s.mad
                WHEN s.mean_ad > 0 THEN (m.value - s.med) / (1.253314 * s.mean_ad)
           END AS z
    FROM metrics AS m
    JOIN spread AS s USING (unit, casino, game, metric)
)
SELECT
    casino,
    CASE WHEN unit = 'table' THEN who END AS table_id,
    NULL::VARCHAR AS round_id,
    NULL::INTEGER AS seat,
    CASE WHEN unit = 'dealer' THEN who END AS dealer_id,
    game,
    unit || ' ' || who || ' (' || game || ', ' || rounds || ' judged rounds): ' || metric || ' '
        || CASE WHEN metric = 'error rate' OR metric = 'hold'
                THEN printf('%.2f%%', 100 * value) || ' against the peers'' median '
                     || printf('%.2f%%', 100 * med)
                ELSE printf('%.1f', value) || ' cents against the peers'' median '
                     || printf('%.1f', med) END
        || ' (robust z ' || printf('%+.1f', z) || ', threshold ' || $threshold || ', '
        || peers || ' peers); ' || rounds_in_error || ' rounds in error, net mispay '
        || net_mispay_cents || ' cents, house win ' || house_win_cents || ' of '
        || handle_cents || ' cents wagered' AS detail
FROM scored
WHERE z IS NOT NULL
  AND abs(z) > $threshold
  AND (metric <> 'error rate' OR z > 0)
ORDER BY casino, game, unit, who, metric
