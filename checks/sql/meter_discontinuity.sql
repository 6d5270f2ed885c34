-- id: meter_discontinuity
-- title: Progressive meter reading not explained by the previous reading of the same meter, the contributions since and any hit and its reset
-- severity: medium
-- rule: docs/rules.md 6a.13 (a percentage award is taken from the round's meter), 58 Pa. Code § 688a.7(h)(3)(i)(B)(4) (a percentage-of-meter award is paid from the meter); Caribbean stud rules 9.5 and 9.6 (a progressive payout settled as the progressive rules say); the meter only grows by the progressive wagers' contributions and only falls by an award it pays
-- next: compare both readings with the progressive controller's log and its hit and reset records; find why the meter moved (a hit not recorded, a reset to the wrong amount, another table on the link, tampering) and recompute any percentage award paid from the later reading
-- catches: meter_jump
-- One meter: the ProgressiveMeterRead's meter_id at its casino (a linked progressive is
-- one meter across the casino's tables that name it), or, when the table names no id, the
-- table's own meter (casino and table). Its readings are the rounds' last readings,
-- ordered by dealt_at, then round id. Offending rows: a reading B whose previous reading
-- A of the same meter does not explain it: with no hit since A, B must lie from A to A
-- plus the Progressive wagers placed since (each wager's contribution is a share of it,
-- never more: the rate of progression is not ruleset data yet, so the rise is bounded,
-- not computed); with a hit since A (a jackpot whose judged award is a share of the meter,
-- award_from_meter), B must lie from the larger of A less the awards recorded and the
-- reset amount (the ruleset's option progressive_reset_cents, rounds'
-- progressive_reset_cents) to that plus the wagers since. "Since A": the round of A and,
-- for a table's own meter, the rounds of that table after it that read no meter; a meter
-- with an id counts the wagers of the rounds that read it (a round of a linked table that
-- takes Progressive wagers without reading the meter cannot be placed on it).
-- Not evaluated, never a pass and never a flag: the first reading of a meter, a reading
-- after a hit when the ruleset names no reset amount (the shipped rulesets name none: no
-- rule text Catwalk holds gives one) or an award was not recorded, and a round without a
-- start time. checks/reports/jackpot_log.sql shows each hit with the meter before and after.
WITH ordered AS (
    SELECT r.casino, r.table_id, r.round_id, r.dealt_at,
           r.progressive_meter_cents AS meter, r.progressive_meter_id AS meter_id,
           r.progressive_reset_cents AS reset_cents,
           last_value(CASE WHEN r.progressive_meter_cents IS NOT NULL THEN r.round_id END
                      IGNORE NULLS) OVER table_order AS reading_round,
           last_value(CASE WHEN r.progressive_meter_cents IS NOT NULL
                           THEN r.progressive_meter_id IS NULL END
                      IGNORE NULLS) OVER table_order AS table_meter
    FROM rounds AS r
    WHERE r.dealt_at IS NOT NULL
    WINDOW table_order AS (PARTITION BY r.casino, r.table_id ORDER BY r.dealt_at, r.round_id
                           ROWS UNBOUNDED PRECEDING)
), grouped AS (
    -- each round whose wagers and awards count towards the reading before it
    SELECT casino, table_id, round_id, reading_round
    FROM ordered
    WHERE reading_round IS NOT NULL AND (meter IS NOT NULL OR table_meter)
), progressive AS (
    SELECT casino, table_id, round_id, sum(amount_cents) AS wagered
    FROM wagers
    WHERE wager = 'progressive' AND amount_cents > 0
    GROUP BY casino, table_id, round_id
), hits AS (
    SELECT casino, table_id, round_id, sum(recorded_award_cents) AS taken,
           count(*) FILTER (WHERE recorded_award_cents IS NULL) AS unrecorded
    FROM jackpots
    WHERE award_from_meter
    GROUP BY casino, table_id, round_id
), since AS (
    SELECT g.casino, g.table_id, g.reading_round AS round_id,
           sum(coalesce(p.wagered, 0)) AS wagered, sum(coalesce(h.taken, 0)) AS taken,
           count(h.round_id) AS hit_rounds, sum(coalesce(h.unrecorded, 0)) AS unrecorded
    FROM grouped AS g
    LEFT JOIN progressive AS p USING (casino, table_id, round_id)
    LEFT JOIN hits AS h USING (casino, table_id, round_id)
    GROUP BY g.casino, g.table_id, g.reading_round
), pairs AS (
    SELECT o.casino, o.table_id, o.round_id, o.meter,
           CASE WHEN o.meter_id IS NOT NULL THEN 'meter ' || o.meter_id
                ELSE 'the meter of table ' || o.table_id END AS meter_name,
           lag(o.round_id) OVER meter_order AS prev_round,
           lag(o.table_id) OVER meter_order AS prev_table,
           lag(o.meter) OVER meter_order AS prev_meter,
           lag(o.reset_cents) OVER meter_order AS prev_reset
    FROM ordered AS o
    WHERE o.meter IS NOT NULL
    WINDOW meter_order AS (
        PARTITION BY o.casino, coalesce('id:' || o.meter_id, 'table:' || o.table_id)
        ORDER BY o.dealt_at, o.round_id)
), judged AS (
    SELECT p.*, s.wagered, s.taken, s.hit_rounds,
           CASE WHEN s.hit_rounds > 0 THEN greatest(p.prev_meter - s.taken, p.prev_reset)
                ELSE p.prev_meter END AS lowest
    FROM pairs AS p
    JOIN since AS s ON s.casino = p.casino AND s.table_id = p.prev_table
                   AND s.round_id = p.prev_round
    WHERE p.prev_round IS NOT NULL
      AND NOT (s.hit_rounds > 0 AND (p.prev_reset IS NULL OR s.unrecorded > 0))
)
SELECT
    j.casino,
    j.round_id,
    j.table_id,
    NULL::INTEGER AS seat,
    'progressive' AS wager,
    j.meter AS recorded_cents,
    CASE WHEN j.meter < j.lowest THEN j.lowest ELSE j.lowest + j.wagered END AS expected_cents,
    j.meter_name || ' read ' || j.meter || ' after ' || j.prev_meter || ' in round '
        || j.prev_round || CASE WHEN j.prev_table <> j.table_id
                                THEN ' (table ' || j.prev_table || ')' ELSE '' END
        || CASE WHEN j.hit_rounds > 0
                THEN ', with awards of ' || j.taken || ' taken from it and its reset amount '
                     || j.prev_reset
                ELSE ' with no hit' END
        || ' and ' || j.wagered || ' of Progressive wagers since: explained only from '
        || j.lowest || ' to ' || (j.lowest + j.wagered) || ' (cents)' AS detail
FROM judged AS j
WHERE j.meter < j.lowest OR j.meter > j.lowest + j.wagered
ORDER BY j.casino, j.table_id, j.round_id
