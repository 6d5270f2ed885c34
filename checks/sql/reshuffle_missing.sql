-- id: reshuffle_missing
-- title: Pai gow poker: no reshuffle recorded between the round's last winning payment and the next round's first deal
-- severity: medium
-- rule: pai gow poker settlement (17) (after all winning hands are paid, the dealer reshuffles the cards in preparation for the next hand)
-- next: pull the video of the end of the round and the start of the next: if the cards were dealt again without a shuffle, the next hand was dealt from a known order of cards; report it to surveillance, retrain the dealer, and review the table's device if it failed to record a shuffle that was done
-- catches: reshuffle_skipped
-- Facts: the table's own order of events (the timeline, by table_seq, which runs across a
-- table's rounds; occurred_at is shown, never used to order), of the rounds recorded under
-- schema id 3 (rounds.vocabulary >= 3), the only vocabulary with a Shuffled event. A
-- round's end is its last winning payment (a WagerSettled with a net above 0) or, when
-- nothing was paid or the deal ran later, its last deal. Lawful: a Shuffled (a reshuffle or
-- a change of deck: both put a new order of cards in play) after that end and before the
-- first deal at the table after it, whether recorded at the end of the round or at the
-- start of the next one before its first deal (or in a round between with no deal).
-- Offending rows: a classic pai gow poker round with cards dealt, not voided, whose end is
-- followed by another deal at the table (of a round also recorded under schema id 3) with
-- no Shuffled between; and a round whose only shuffles of its own came after its first deal
-- but before its last winning payment (the dealer shuffled too soon), with none after, even
-- when no later deal is in the outputs. Not evaluated, never flagged: a round with no later
-- deal at its table in the outputs and no shuffle of its own after its first deal (the
-- shift may simply have ended there), a voided round, a round at a table that recorded no
-- Shuffled at all in the outputs (schema id 3 lets a device leave out what it does not
-- know, so a table that never records one says nothing of its shuffles: the absence of one
-- shuffle is only evidence where the table records them), and a round recorded under an
-- older vocabulary (checks/reports/vocabulary_unjudged.sql lists the last two with why). A
-- corrected event stands where the event it corrects stood (the view play).
WITH ev AS (
    SELECT casino, table_id, round_id, table_seq, occurred_at, event
    FROM play
    WHERE event IN ('cards dealt', 'tiles dealt', 'shuffled')
       OR event = 'wager settled' AND net_cents > 0
), per_round AS (
    -- every round's first and last deal, last winning payment and last shuffle, in one pass
    SELECT casino, table_id, round_id,
           min(table_seq) FILTER (WHERE event IN ('cards dealt', 'tiles dealt')) AS first_deal,
           max(table_seq) FILTER (WHERE event IN ('cards dealt', 'tiles dealt')) AS last_deal,
           max(table_seq) FILTER (WHERE event = 'wager settled') AS last_paid,
           max(table_seq) FILTER (WHERE event = 'shuffled') AS own_shuffle,
           arg_max(occurred_at, table_seq) FILTER (WHERE event <> 'shuffled') AS end_at
    FROM ev
    GROUP BY casino, table_id, round_id
), recording AS (
    -- the tables whose device records shuffles: at least one Shuffled in the outputs
    SELECT DISTINCT casino, table_id FROM per_round WHERE own_shuffle IS NOT NULL
), judged AS (
    SELECT casino, table_id, round_id
    FROM rounds
    SEMI JOIN recording USING (casino, table_id)
    WHERE game = 'pai_gow_poker' AND vocabulary >= 3 AND NOT coalesce(voided, false)
), ends AS (
    -- a round's end: its last winning payment, or its last deal when that is later
    SELECT p.*, greatest(p.last_deal, p.last_paid) AS end_seq
    FROM per_round AS p
    SEMI JOIN judged USING (casino, table_id, round_id)
    WHERE p.first_deal IS NOT NULL
), deals AS (
    -- each round's first deal: the first deal after a round's end is the next round's first
    SELECT casino, table_id, round_id, first_deal AS table_seq
    FROM per_round
    WHERE first_deal IS NOT NULL
), shuffles AS (
    SELECT casino, table_id, round_id, table_seq FROM ev WHERE event = 'shuffled'
), followed AS (
    -- the first deal at the table after the round's end, and the first shuffle after it
    SELECT n.*, d.table_seq AS next_deal, d.round_id AS next_round
    FROM ends AS n
    ASOF LEFT JOIN deals AS d
      ON d.casino = n.casino AND d.table_id = n.table_id AND d.table_seq > n.end_seq
), shuffled AS (
    SELECT f.*, s.table_seq AS shuffle_seq
    FROM followed AS f
    ASOF LEFT JOIN shuffles AS s
      ON s.casino = f.casino AND s.table_id = f.table_id AND s.table_seq > f.end_seq
)
SELECT
    s.casino,
    s.table_id,
    s.round_id,
    NULL::INTEGER AS seat,
    CASE WHEN s.next_deal IS NOT NULL
         THEN 'no shuffle recorded after the round''s '
              || CASE WHEN s.end_seq = s.last_paid THEN 'last winning payment'
                      ELSE 'last deal' END
              || ' (table_seq ' || s.end_seq || ', '
              || strftime(s.end_at, '%Y-%m-%dT%H:%M:%S.%fZ')
              || ') before the next deal at the table, round ' || s.next_round
              || ' (table_seq ' || s.next_deal || ')'
         ELSE '' END
    || CASE WHEN s.own_shuffle > s.first_deal AND s.own_shuffle < s.end_seq
            THEN CASE WHEN s.next_deal IS NOT NULL THEN '; ' ELSE '' END
                 || 'the round''s shuffle (table_seq ' || s.own_shuffle
                 || ') came before its last winning payment (table_seq ' || s.end_seq
                 || ') and none after'
            ELSE '' END AS detail
FROM shuffled AS s
LEFT JOIN rounds AS nr
  ON nr.casino = s.casino AND nr.table_id = s.table_id AND nr.round_id = s.next_round
WHERE (s.shuffle_seq IS NULL OR s.shuffle_seq > s.next_deal)
  AND (s.next_deal IS NOT NULL AND nr.vocabulary >= 3
       OR s.shuffle_seq IS NULL AND s.own_shuffle > s.first_deal
          AND s.own_shuffle < s.end_seq)
ORDER BY s.casino, s.table_id, s.round_id
