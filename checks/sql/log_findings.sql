-- id: log_findings
-- title: The log itself: a duplicate or conflicting event, a gap or disorder in a table's sequence numbers, a record that does not decode
-- severity: high
-- rule: docs/rules.md 8.6 (nothing lost, nothing silent: every event and every round accounted for)
-- next: find where the log lost, repeated or garbled events (ingest, the table device) and re-ingest from the topic; judge the affected rounds again once the log is complete
SELECT
    f.casino,
    f.round_id,
    f.table_id,
    NULL::INTEGER AS seat,
    NULL::BIGINT AS recorded_cents,
    NULL::BIGINT AS expected_cents,
    f.kind || ' at ' || f."where" || ': ' || f.detail AS detail
FROM findings AS f
-- in log order within a table: "log position N (...)" by N
ORDER BY f.casino NULLS FIRST, f.table_id NULLS FIRST,
    TRY_CAST(regexp_extract(f."where", '^log position (\d+)', 1) AS BIGINT) NULLS LAST,
    f."where"
