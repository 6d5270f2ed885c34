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
-- progressive_reset_cents) to that plus the wagers since. "Since A": the round of A and
-- the rounds of A's table after it that read no meter (a round whose reading was lost
-- still contributes; on a linked meter such a round counts towards its table's last
-- reading, which can only widen what is explained, never flag more).
-- Not evaluated, never a pass and never a flag: the first reading of a meter, a reading
-- after a hit when the ruleset names no reset amount (the shipped rulesets name none: no
-- rule text Catwalk holds gives one) or an award was not recorded, a reading after a hit
-- whose award the engine did not judge (its round not evaluated: whether it was taken from
-- the meter is unknown), and a round without a start time. checks/reports/jackpot_log.sql shows each hit with the meter before and after.
WITH ordered AS (
    -- a round's number is that of the latest reading of its table dealt before it or with
    -- it (a running sum, linear in rounds): the rounds of one number are a reading and the
    -- table's rounds after it that read no meter
    SELECT r.casino, r.table_id, r.round_id, r.dealt_at,
           r.progressive_meter_cents AS meter, r.progressive_meter_id AS meter_id,
           r.progressive_reset_cents AS reset_cents,
           sum(CASE WHEN r.progressive_meter_cents IS NOT NULL THEN 1 ELSE 0 END) OVER (
               PARTITION BY r.casino, r.table_id ORDER BY r.dealt_at, r.round_id
               ROWS UNBOUNDED PRECEDING) AS reading_number
    FROM rounds AS r
    WHERE r.dealt_at IS NOT NULL
), wagered AS (
    SELECT o.casino, o.table_id, o.reading_number, sum(w.amount_cents) AS wagered
    FROM wagers AS w
    JOIN ordered AS o USING (casino, table_id, round_id)
    WHERE w.wager = 'progressive' AND w.amount_cents > 0 AND o.reading_number > 0
    GROUP BY o.casino, o.table_id, o.reading_number
), hits AS (
    -- the awards a share of the meter (judged), as recorded; and the hits whose source was
    -- not judged (their round not evaluated: a fixed award or a share, nobody can say)
    SELECT o.casino, o.table_id, o.reading_number,
           sum(j.recorded_award_cents) FILTER (WHERE j.award_from_meter) AS taken,
           count(*) FILTER (WHERE j.award_from_meter) AS hits,
           count(*) FILTER (WHERE j.award_from_meter AND j.recorded_award_cents IS NULL)
               AS unrecorded,
           count(*) FILTER (WHERE j.award_from_meter IS NULL) AS unjudged
    FROM jackpots AS j
    JOIN ordered AS o USING (casino, table_id, round_id)
    WHERE (j.award_from_meter OR j.award_from_meter IS NULL) AND o.reading_number > 0
    GROUP BY o.casino, o.table_id, o.reading_number
), pairs AS (
    SELECT o.casino, o.table_id, o.round_id, o.meter,
           CASE WHEN o.meter_id IS NOT NULL THEN 'meter ' || o.meter_id
                ELSE 'the meter of table ' || o.table_id END AS meter_name,
           lag(o.round_id) OVER meter_order AS prev_round,
           lag(o.table_id) OVER meter_order AS prev_table,
           lag(o.reading_number) OVER meter_order AS prev_number,
           lag(o.meter) OVER meter_order AS prev_meter,
           lag(o.reset_cents) OVER meter_order AS prev_reset
    FROM ordered AS o
    WHERE o.meter IS NOT NULL
    WINDOW meter_order AS (
        PARTITION BY o.casino, coalesce('id:' || o.meter_id, 'table:' || o.table_id)
        ORDER BY o.dealt_at, o.round_id)
), judged AS (
    SELECT p.*, coalesce(w.wagered, 0) AS wagered, coalesce(h.taken, 0) AS taken,
           coalesce(h.hits, 0) AS hit_count,
           CASE WHEN h.hits > 0 THEN greatest(p.prev_meter - h.taken, p.prev_reset)
                ELSE p.prev_meter END AS lowest
    FROM pairs AS p
    LEFT JOIN wagered AS w ON w.casino = p.casino AND w.table_id = p.prev_table
                          AND w.reading_number = p.prev_number
    LEFT JOIN hits AS h ON h.casino = p.casino AND h.table_id = p.prev_table
                       AND h.reading_number = p.prev_number
    WHERE p.prev_round IS NOT NULL
      AND NOT coalesce(h.hits > 0 AND (p.prev_reset IS NULL OR h.unrecorded > 0), false)
      AND NOT coalesce(h.unjudged > 0, false)
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
        || CASE WHEN j.hit_count > 0
                THEN ', with awards of ' || j.taken || ' taken from it and its reset amount '
                     || j.prev_reset
                ELSE ' with no hit' END
        || ' and ' || j.wagered || ' of Progressive wagers since: explained only from '
        || j.lowest || ' to ' || (j.lowest + j.wagered) || ' (cents)' AS detail
FROM judged AS j
WHERE j.meter < j.lowest OR j.meter > j.lowest + j.wagered
ORDER BY j.casino, j.table_id, j.round_id
