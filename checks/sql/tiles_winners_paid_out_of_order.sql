-- id: tiles_winners_paid_out_of_order
-- title: Pai gow tiles: a winning wager paid out of turn (not from the dealer's far right, right to left around the table)
-- severity: low
-- rule: PR pai gow tiles ¶ J (the dealer pays the winning wagers starting with the player at the dealer's far right and continuing right to left around the table)
-- next: pull the video of the payments: a winner paid out of turn is how a payment to a confederate, or a short one, is slipped in out of the camera's sweep; confirm the table layout filed for the table is the one in use, check the round's money flags, and retrain the dealer
-- catches: tiles_winners_paid_out_of_order
-- Facts: the order of events within the round (the view play, by table_seq: a corrected
-- settlement stands at the place of the one it corrects; occurred_at is shown, never used
-- to order, so events at the same instant pass), what each settlement did with the money,
-- whatever its word (a net above 0 is a payment; a wrong word with the right money is
-- outcome_word_wrong's to say), and the table's seat order (rounds.seat_order: the seats
-- from the dealer's far right, right to left, by the layout the casino filed for the table
-- in force when the round was dealt, docs/rulesets.md "Table layouts"; the convention is
-- docs/rules.md 6a.21). The sequence is each player's first payment of the main wager; the
-- losers, the ties, the side wagers, the player banker's account and the dealer's own
-- wager against the bank are not part of it (winners paid before the losers are collected
-- are winner_paid_before_losers' to say). When a player banks, both readings of 6a.21 are
-- lawful (from the dealer's far right, as ¶ J says, or from the player banker's right, as
-- pai gow poker settlement (12)(b) does), so the round is flagged only when the payments
-- follow neither. Offending rows: one per seat paid after a seat that comes after it in
-- the order, naming the first such seat. Not evaluated (neither flagged nor passed; the
-- report checks/reports/seat_order_unjudged.sql lists each round with why): a round with
-- two or more winners paid and no layout filed for the table in force when it was dealt
-- (seat_order null: "no table layout filed"), or whose layout does not list a seat paid
-- (or the player banker's seat): a layout that does not know a seat cannot place it. One
-- winner has no order to judge.
-- Reads tiles_out_of_turn (checks/sql/_views/91_tiles_out_of_turn.sql, over seat_turns:
-- the three checks of the order around the table share its one pass over the view play).
SELECT
    l.casino,
    l.table_id,
    l.round_id,
    l.seat,
    'main' AS wager,
    'seat ' || l.seat || '''s winning main wager was paid (table_seq ' || l.seq || ', '
        || strftime(l.at, '%Y-%m-%dT%H:%M:%S.%fZ') || ') after seat ' || l.dealer_after
        || '''s (table_seq ' || l.dealer_after_seq || '), which comes after it from the '
        || 'dealer''s far right, right to left (seat order '
        || array_to_string(o.seat_order, ' ') || ')'
        || CASE WHEN l.banker_turn IS NOT NULL
                THEN '; nor was it in turn from the player banker''s right (seat '
                     || l.banker_seat || ' banks)' ELSE '' END AS detail
FROM tiles_out_of_turn AS l
JOIN rounds AS o USING (casino, table_id, round_id)
WHERE l.step = 'paid'
ORDER BY casino, table_id, round_id, seat
