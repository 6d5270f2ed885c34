-- id: conflicting_duplicate
-- title: Two different events under the same event id (the first copy counts)
-- severity: high
-- rule: docs/rules.md 8.6 (a different content under the same id is a conflicting duplicate; the first copy counts)
-- next: compare the two copies (the log positions shown) with the table device's record and the video: an event was altered or replayed with other content; if the second copy is the true one, record a correction (EventCorrected) and judge the round again; report it to surveillance
-- catches: none
-- Offending rows: every log finding of kind conflicting_duplicate_event: an event id seen
-- again with another content. replay judges the round on the first copy.
SELECT
    f.casino,
    f.round_id,
    f.table_id,
    NULL::INTEGER AS seat,
    f.kind || ' at ' || f."where" || ': ' || f.detail AS detail
FROM findings AS f
WHERE f.kind IN ('conflicting_duplicate_event')
-- in log order within a table: "log position N (...)" by N
ORDER BY f.casino NULLS FIRST, f.table_id NULLS FIRST,
    TRY_CAST(regexp_extract(f."where", '^log position (\d+)', 1) AS BIGINT) NULLS LAST,
    f."where", f.detail
