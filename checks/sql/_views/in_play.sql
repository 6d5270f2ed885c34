-- in_play: with live (python -m checks --follow), the rounds still in play, each the latest
-- round of its table (by the time it was dealt) with no RoundEnded and no void yet. While
-- ingest runs, such a round is being dealt, so "not ended", "never settled" and "not
-- evaluated" would be alarms that clear themselves seconds later; they are left out of every
-- view until the round ends, or until a later round of the same table shows that it never
-- did (then every check sees it). Built before the views (it reads all_rounds, replay's
-- rounds before any narrowing), so it has no NN_ place among the shared relations.
SELECT casino, table_id, round_id FROM all_rounds
QUALIFY NOT ended AND NOT coalesce(voided, false)
    AND coalesce(dealt_at = max(dealt_at) OVER (PARTITION BY casino, table_id), false)
