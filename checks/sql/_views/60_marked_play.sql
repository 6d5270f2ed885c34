-- marked_play: the events of the view play that the checks of the order of play read
-- (HandSet, HandsExposed, PlayerActed, WagerSettled, EnvyBonusPaid), of the rounds in
-- play_marks only: the seven checks read it instead of play. Each check's rows are all in
-- rounds it marks there, and it reads whole rounds, so it says here exactly what it would
-- say over the whole timeline; the timeline is scanned twice for the seven (play_marks, and
-- here) instead of once or twice by each.
SELECT casino, table_id, round_id, game, table_seq, occurred_at, event_id, event,
       seat, position, wager, outcome, action, for_seat, net_cents
FROM play
SEMI JOIN play_marks USING (casino, table_id, round_id)
WHERE event IN ('hand set', 'hands exposed', 'player acted', 'wager settled',
                'Envy Bonus paid')
