-- id: clock_skew
-- title: A table's clock against the broker's: an event whose occurred-at is further from its Kafka timestamp than the tolerance
-- severity: medium
-- params: tolerance_seconds=300
-- rule: docs/rules.md 8.6 (the log itself: a table device's time is checked against the broker's; a round whose RoundStarted is so skewed is judged under the ruleset in force at the broker's time, and the finding says so); the casino's internal controls keep the devices' clocks right (58 Pa. Code § 465a.2)
-- next: have the table device's clock set (time service, battery) and check the rounds it dated while wrong: their dealt_at is the device's; their ruleset was chosen by the broker's time
-- catches: none
-- Offending rows: every log finding of kind clock_skew (replay records one per event whose
-- occurred_at differs from its record's broker timestamp by more than 5 minutes, with both
-- times and the difference) whose difference is above $tolerance_seconds. Replay records
-- nothing below its own 5 minutes, so the parameter can raise the tolerance, not lower it.
SELECT
    f.casino,
    f.round_id,
    f.table_id,
    NULL::INTEGER AS seat,
    f.kind || ' at ' || f."where" || ': ' || f.detail AS detail
FROM findings AS f
WHERE f.kind = 'clock_skew'
  AND coalesce(TRY_CAST(regexp_extract(f.detail, 'the table''s clock is ([0-9]+(\.[0-9]+)?) s ', 1)
                        AS DOUBLE), 'infinity'::DOUBLE) > $tolerance_seconds
-- in log order within a table: "log position N (...)" by N
ORDER BY f.casino NULLS FIRST, f.table_id NULLS FIRST,
    TRY_CAST(regexp_extract(f."where", '^log position (\d+)', 1) AS BIGINT) NULLS LAST,
    f."where", f.detail
