-- preceding_dealer_hand: every classic pai gow poker round a player banks (banker_seat, the
-- seat in rounds.banker), with the preceding hand the dealer banked at its casino and table
-- (preceding_round): the latest round of that table's pai gow poker, in the order rounds
-- were dealt (dealt_at, then round id), dealt before it or with it, that the dealer banked
-- and that was not voided; null when there is none, and for a round without a start time,
-- which cannot be placed among its table's rounds (dealt_at null: the rounds without one
-- are numbered apart and match none). dealer_wager_not_preceding reads the rounds with a
-- start time; the report dealer_wager_unjudged reads them all.
WITH poker AS (
    SELECT r.casino, r.table_id, r.round_id, r.dealt_at, r.banker,
           TRY_CAST(regexp_extract(r.banker, '^seat (\d+)', 1) AS INTEGER) AS banker_seat,
           r.banker = 'dealer' AND NOT coalesce(r.voided, false) AS dealer_banked
    FROM rounds AS r
    WHERE r.game = 'pai_gow_poker'
), numbered AS (
    -- the dealer-banked hands counted in the table's order: a round's number is that of the
    -- latest dealer-banked hand dealt before it or with it (a running sum, linear in rounds)
    SELECT p.*,
           CASE WHEN p.dealt_at IS NOT NULL THEN
               sum(CASE WHEN p.dealer_banked THEN 1 ELSE 0 END) OVER (
                   PARTITION BY p.casino, p.table_id, p.dealt_at IS NULL
                   ORDER BY p.dealt_at, p.round_id ROWS UNBOUNDED PRECEDING) END AS hand_number
    FROM poker AS p
)
SELECT n.casino, n.table_id, n.round_id, n.dealt_at, n.banker_seat,
       d.round_id AS preceding_round
FROM numbered AS n
LEFT JOIN numbered AS d
  ON d.casino = n.casino AND d.table_id = n.table_id AND d.dealer_banked
 AND d.dealt_at IS NOT NULL AND d.hand_number = n.hand_number
WHERE n.banker_seat IS NOT NULL
