-- id: log_findings
-- title: The log itself: a record that does not decode, or a log finding no other check names
-- severity: high
-- rule: docs/rules.md 8.6 (nothing lost, nothing silent: every event and every round accounted for; a record that does not decode is a finding)
-- next: find where the log garbled or lost the record (ingest, the table device, the topic) and re-ingest from the topic; judge the affected rounds again once the log is complete
-- catches: none
-- Offending rows: every log finding that has no check of its own: undecodable_record, and any
-- kind this catalogue does not know (fail closed). Repeats are duplicate_event and
-- conflicting_duplicate, gaps and steps back in a table's sequence numbers sequence_gap, a
-- table's clock against the broker's clock_skew.
SELECT
    f.casino,
    f.round_id,
    f.table_id,
    NULL::INTEGER AS seat,
    coalesce(f.kind, 'finding') || ' at ' || coalesce(f."where", '?') || ': '
        || coalesce(f.detail, '') AS detail
FROM findings AS f
WHERE f.kind IS NULL
   OR f.kind NOT IN ('duplicate_event', 'conflicting_duplicate_event', 'sequence_gap',
                     'sequence_out_of_order', 'clock_skew')
-- in log order within a table: "log position N (...)" by N
ORDER BY f.casino NULLS FIRST, f.table_id NULLS FIRST,
    TRY_CAST(regexp_extract(f."where", '^log position (\d+)', 1) AS BIGINT) NULLS LAST,
    f."where", f.detail
