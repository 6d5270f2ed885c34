-- id: repeat_overpay_seat
-- title: One seat overpaid again and again by the same dealer on one day (the collusion pattern)
-- severity: high
-- kind: statistical
-- params: min_overpays=3
-- rule: surveillance, not a rule of play: a dealer paying an accomplice shows as the same seat overpaid by the same dealer, round after round (58 Pa. Code § 465a.9 (surveillance system and department) and the internal control systems of § 465a.2); see docs/checks.md "Statistical surveillance"
-- next: a lead, not a finding: watch the video of every round listed and the seat's patron (the log names seats, not patrons: identify them from the rated play or the video); if the pattern holds, remove the dealer from the game and refer it to the surveillance manager
-- Offending rows: per casino, table, seat, dealer and UTC day, at least $min_overpays
-- judged rounds in which that seat's wagers were settled for more than the rules require.
-- The log names seats, not patrons: a seat under one dealer on one day stands for the
-- patron sitting there. recorded/expected are the seat's totals over those rounds, so the
-- amount at stake is what the seat was overpaid in all.
WITH over AS (
    SELECT
        w.casino, w.table_id, w.seat, w.dealer_id, CAST(w.dealt_at AS DATE) AS day,
        w.round_id,
        sum(CAST(w.recorded_net_cents AS HUGEINT)) AS recorded,
        sum(CAST(w.expected_net_cents AS HUGEINT)) AS expected
    FROM wagers AS w
    SEMI JOIN (SELECT casino, table_id, round_id FROM rounds WHERE evaluated) AS r
        USING (casino, table_id, round_id)
    WHERE w.seat IS NOT NULL
      AND w.dealer_id IS NOT NULL
      AND w.recorded_net_cents IS NOT NULL
      AND w.expected_net_cents IS NOT NULL
    GROUP BY w.casino, w.table_id, w.seat, w.dealer_id, day, w.round_id
    HAVING sum(CAST(w.recorded_net_cents AS HUGEINT))
         > sum(CAST(w.expected_net_cents AS HUGEINT))
)
SELECT
    casino,
    table_id,
    NULL::VARCHAR AS round_id,
    seat,
    dealer_id,
    -- totals beyond 64 bits are clamped by the cast below failing: keep them exact in text
    CASE WHEN abs(sum(recorded)) < 9223372036854775807 THEN CAST(sum(recorded) AS BIGINT) END
        AS recorded_cents,
    CASE WHEN abs(sum(expected)) < 9223372036854775807 THEN CAST(sum(expected) AS BIGINT) END
        AS expected_cents,
    'seat ' || seat || ' at table ' || table_id || ' overpaid in ' || count(*)
        || ' rounds by dealer ' || dealer_id || ' on ' || CAST(day AS VARCHAR) || ': '
        || CAST(sum(recorded - expected) AS VARCHAR) || ' cents in all; rounds '
        || string_agg(round_id, ', ' ORDER BY round_id) AS detail
FROM over
GROUP BY casino, table_id, seat, dealer_id, day
HAVING count(*) >= $min_overpays
ORDER BY casino, table_id, seat, dealer_id, day
