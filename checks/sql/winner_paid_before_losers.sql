-- id: winner_paid_before_losers
-- title: A winning wager paid before the losing wagers were collected (or, in pai gow poker, before the ties; in pai gow tiles, before every hand was shown)
-- severity: medium
-- rule: pai gow poker settlement (4) (winning wagers are not paid until losing hands and ties are settled) and (7) (the losing wagers picked up immediately once the losers are determined); 58 Pa. Code § 688a.7(f)(1) (a losing Face Up Pai Gow Poker Wager is immediately collected); PR pai gow tiles ¶ H (all losing wagers collected at once) and ¶ J (winning wagers paid after all the hands have been shown)
-- next: pull the video of the settlement: if the dealer paid a winner before collecting the losers, retrain the dealer on the order of settlement and watch the table (paying first is how a wrong payment out of a short stack goes unseen); check the round's money flags too
-- catches: winner_paid_before_losers_collected
-- Facts: the order of events within the round (the timeline, by table_seq; occurred_at is
-- shown, never used to order), and what each settlement did with the money, whatever its
-- word: a net above 0 is a payment, below 0 a collection, 0 a tie (a wrong word with the
-- right money is outcome_word_wrong's to say, not an order fault). The wager of the hands: main (the Face Up wager in Face Up);
-- the side wagers are settled after it, seat by seat (§ 688a.7(h)), and the dealer's own
-- wager against a player banker is settled apart (settlement (12)); neither is ordered here.
-- Offending rows: one per winning main wager whose settlement comes before a main wager
-- settled as a loss (every game), as a push (pai gow poker: "losing hands and ties";
-- § 688a.7(f)(2) and ¶ I set no order for a tie), or before a player's HandsExposed (pai gow
-- tiles, ¶ J: every player's hands, per ¶ G; the dealer's are set face up, ¶ C), naming
-- the first such event after it. Losers in any order among themselves, ties and losers
-- interleaved, winners in any order after them, and events at the same instant
-- pass; a corrected settlement stands at the place of the one it corrects (the view play).
-- A settlement missing from the log is not judged here (unsettled, sequence_gap say it).
-- Reads marked_play (checks/sql/_views/60_marked_play.sql), not play: the events of the
-- rounds checks/sql/_views/50_play_marks.sql marks, where every row of this check is,
-- so that the seven checks of the order of play do not each scan the timeline.
WITH main AS (
    SELECT casino, table_id, round_id, game, seat, table_seq, occurred_at,
           CASE WHEN net_cents > 0 THEN 'win' WHEN net_cents < 0 THEN 'loss'
                ELSE 'push' END AS outcome
    FROM marked_play
    WHERE event = 'wager settled' AND wager = 'main' AND seat IS NOT NULL
      AND net_cents IS NOT NULL
      AND position <> 'banker'
      AND game IN ('pai_gow_poker', 'face_up_pai_gow', 'pai_gow_tiles')
), later AS (
    SELECT w.casino, w.table_id, w.round_id, w.seat, w.table_seq AS paid_seq,
           w.occurred_at AS paid_at, o.table_seq AS other_seq,
           'seat ' || o.seat || '''s ' || CASE o.outcome WHEN 'loss' THEN 'losing main wager '
               || 'was collected' ELSE 'tie was settled' END AS other
    FROM main AS w
    JOIN main AS o
      ON o.casino = w.casino AND o.table_id = w.table_id AND o.round_id = w.round_id
     AND o.table_seq > w.table_seq
    WHERE w.outcome = 'win'
      AND (o.outcome = 'loss' OR o.outcome = 'push' AND w.game = 'pai_gow_poker')
    UNION ALL
    SELECT w.casino, w.table_id, w.round_id, w.seat, w.table_seq, w.occurred_at, e.table_seq,
           e.position || '''s hands were shown'
    FROM main AS w
    JOIN marked_play AS e
      ON e.casino = w.casino AND e.table_id = w.table_id AND e.round_id = w.round_id
     AND e.table_seq > w.table_seq AND e.event = 'hands exposed' AND e.seat IS NOT NULL
    WHERE w.outcome = 'win' AND w.game = 'pai_gow_tiles'
), first_after AS (
    SELECT casino, table_id, round_id, seat, paid_seq, any_value(paid_at) AS paid_at,
           min(other_seq) AS other_seq, arg_min(other, other_seq) AS other
    FROM later
    GROUP BY casino, table_id, round_id, seat, paid_seq
)
SELECT
    casino,
    table_id,
    round_id,
    seat,
    'main' AS wager,
    'seat ' || seat || '''s winning main wager was paid (table_seq ' || paid_seq || ', '
        || strftime(paid_at, '%Y-%m-%dT%H:%M:%S.%fZ') || ') before ' || other
        || ' (table_seq ' || other_seq || ')' AS detail
FROM first_after
ORDER BY casino, table_id, round_id, seat, paid_seq
