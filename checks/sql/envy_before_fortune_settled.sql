-- id: envy_before_fortune_settled
-- title: Face Up: an Envy Bonus paid before every Fortune Bonus Wager was settled
-- severity: medium
-- rule: 58 Pa. Code § 688a.7(h)(2)(ii) (after all Fortune Bonus Wagers have been settled, the dealer pays each Envy Bonus)
-- next: pull the video of the settlement: an Envy Bonus paid before the Fortune wagers were settled was paid before the Envy Bonus Qualifying Hands were acknowledged (§ 688a.7(h)(2)(i)(B)); check it against the hands with the table supervisor and retrain the dealer on the order of settlement
-- catches: none
-- Facts: the order of events within the round (the timeline, by table_seq; occurred_at is
-- shown, never used to order). Offending rows: one per Envy Bonus paid (the receiving seat)
-- whose EnvyBonusPaid comes before a Fortune wager's WagerSettled, naming the first such
-- settlement after it. Fortune wagers settled in any order, Envy Bonuses in any order after
-- them (a seat paid several), and events at the same instant pass; a corrected event
-- stands at the place of the one it corrects (the view play). A Fortune settlement missing
-- from the log is not judged here (unsettled, sequence_gap say it).
-- Reads marked_play (checks/sql/_views/60_marked_play.sql), not play: the events of the
-- rounds checks/sql/_views/50_play_marks.sql marks, where every row of this check is,
-- so that the seven checks of the order of play do not each scan the timeline.
WITH envy AS (
    SELECT casino, table_id, round_id, seat, for_seat, table_seq, occurred_at
    FROM marked_play
    WHERE game = 'face_up_pai_gow' AND event = 'Envy Bonus paid'
), fortune AS (
    -- only the rounds with an Envy Bonus: the Fortune wagers of every other round are not read
    SELECT casino, table_id, round_id, seat, table_seq
    FROM marked_play
    SEMI JOIN envy USING (casino, table_id, round_id)
    WHERE game = 'face_up_pai_gow' AND event = 'wager settled' AND wager = 'fortune'
), early AS (
    SELECT e.casino, e.table_id, e.round_id, e.seat, e.for_seat, e.table_seq AS paid_seq,
           any_value(e.occurred_at) AS paid_at, min(f.table_seq) AS fortune_seq,
           arg_min(f.seat, f.table_seq) AS fortune_seat
    FROM envy AS e
    JOIN fortune AS f
      ON f.casino = e.casino AND f.table_id = e.table_id AND f.round_id = e.round_id
     AND f.table_seq > e.table_seq
    GROUP BY e.casino, e.table_id, e.round_id, e.seat, e.for_seat, e.table_seq
)
SELECT
    casino,
    table_id,
    round_id,
    seat,
    'seat ' || seat || ' was paid an Envy Bonus for '
        || coalesce('seat ' || for_seat, 'the dealer') || '''s hand (table_seq ' || paid_seq
        || ', ' || strftime(paid_at, '%Y-%m-%dT%H:%M:%S.%fZ') || ') before seat '
        || fortune_seat || '''s Fortune wager was settled (table_seq ' || fortune_seq || ')'
        AS detail
FROM early
ORDER BY casino, table_id, round_id, seat, paid_seq
