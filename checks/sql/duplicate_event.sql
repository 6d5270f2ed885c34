-- id: duplicate_event
-- title: The same event twice in the log (an exact repeat, kept once)
-- severity: low
-- rule: docs/rules.md 8.6 (the same event id twice is kept once)
-- next: nothing to re-settle (the repeat was kept once); find why the event was sent or logged twice (a device resend, a producer retry, ingest) and fix it, as repeats hide the lost events a sequence gap would show
-- catches: duplicated_events
-- Offending rows: every log finding of kind duplicate_event: an event whose id and content
-- are those of an earlier one. replay keeps it once, so it changes no judgement.
SELECT
    f.casino,
    f.round_id,
    f.table_id,
    NULL::INTEGER AS seat,
    f.kind || ' at ' || f."where" || ': ' || f.detail AS detail
FROM findings AS f
WHERE f.kind IN ('duplicate_event')
-- in log order within a table: "log position N (...)" by N
ORDER BY f.casino NULLS FIRST, f.table_id NULLS FIRST,
    TRY_CAST(regexp_extract(f."where", '^log position (\d+)', 1) AS BIGINT) NULLS LAST,
    f."where", f.detail
