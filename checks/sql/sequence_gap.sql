-- id: sequence_gap
-- title: Gap or step back in a table's sequence numbers: events of the table are missing from the log, or arrived out of order
-- severity: high
-- rule: docs/rules.md 8.6 (a gap or a step back in a table's sequence numbers is a finding: nothing lost, nothing silent)
-- next: find where the table's events were lost or reordered (the table device, the topic, ingest) and re-ingest them from the topic; judge the round named again once its events are all in the log
-- catches: missing_events
-- Offending rows: every log finding of kind sequence_gap (a table's sequence number jumps
-- ahead: events are missing) or sequence_out_of_order (it steps back), named by the round of
-- the event where it showed (the event after the gap).
SELECT
    f.casino,
    f.round_id,
    f.table_id,
    NULL::INTEGER AS seat,
    f.kind || ' at ' || f."where" || ': ' || f.detail AS detail
FROM findings AS f
WHERE f.kind IN ('sequence_gap', 'sequence_out_of_order')
-- in log order within a table: "log position N (...)" by N
ORDER BY f.casino NULLS FIRST, f.table_id NULLS FIRST,
    TRY_CAST(regexp_extract(f."where", '^log position (\d+)', 1) AS BIGINT) NULLS LAST,
    f."where", f.detail
