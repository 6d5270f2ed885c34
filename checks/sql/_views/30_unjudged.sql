-- unjudged: the keys of the rounds not evaluated. A check keeps to judged rounds with
-- ANTI JOIN unjudged USING (casino, table_id, round_id), without joining every row of rounds.
SELECT casino, table_id, round_id FROM round_problems WHERE evaluated IS NOT TRUE
