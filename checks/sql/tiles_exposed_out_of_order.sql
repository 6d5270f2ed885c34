-- id: tiles_exposed_out_of_order
-- title: Pai gow tiles: a player's hands shown out of turn (not from the dealer's far right, right to left around the table)
-- severity: medium
-- rule: PR pai gow tiles ¶ G (the dealer shows both hands of each player starting with the player at the dealer's far right and continuing right to left around the table)
-- next: pull the video of the showing: hands shown out of turn are how a dealer gets to see a later hand before deciding an earlier one (or to cover a switched tile); confirm the table layout filed for the table is the one in use, retrain the dealer, and watch the table
-- catches: tiles_exposed_out_of_order
-- Facts: the order of events within the round (the view play, by table_seq: a corrected
-- event stands at the place of the one it corrects; occurred_at is shown, never used to
-- order, so events at the same instant pass) and the table's seat order
-- (rounds.seat_order: the seats from the dealer's far right, right to left, by the layout
-- the casino filed for the table in force when the round was dealt, docs/rulesets.md
-- "Table layouts"; the convention is docs/rules.md 6a.21). The sequence is each player's
-- first HandsExposed; a seat that withdrew or was never shown is skipped, and the player
-- banker's and the dealer's own exposures are not part of it. When a player banks, ¶ G
-- says nothing of the banker, and pai gow poker procedure (7) starts from the player
-- banker's right: both readings are lawful (6a.21), so the round is flagged only when the
-- showing follows neither. Offending rows: one per seat shown after a seat that comes
-- after it in the order, naming the first such seat. Not evaluated (neither flagged nor
-- passed; the report checks/reports/seat_order_unjudged.sql lists each round with why): a
-- round with two or more players shown and no layout filed for the table in force when it
-- was dealt (seat_order null: "no table layout filed"), or whose layout does not list a
-- seat shown (or the player banker's seat): a layout that does not know a seat cannot
-- place it. One player has no order to judge.
-- Reads tiles_out_of_turn (checks/sql/_views/91_tiles_out_of_turn.sql, over seat_turns:
-- the three checks of the order around the table share its one pass over the view play).
SELECT
    l.casino,
    l.table_id,
    l.round_id,
    l.seat,
    'seat ' || l.seat || '''s hands were shown (table_seq ' || l.seq || ', '
        || strftime(l.at, '%Y-%m-%dT%H:%M:%S.%fZ') || ') after seat ' || l.dealer_after
        || '''s (table_seq ' || l.dealer_after_seq || '), which comes after it from the '
        || 'dealer''s far right, right to left (seat order '
        || array_to_string(o.seat_order, ' ') || ')'
        || CASE WHEN l.banker_turn IS NOT NULL
                THEN '; nor were they in turn from the player banker''s right (seat '
                     || l.banker_seat || ' banks)' ELSE '' END AS detail
FROM tiles_out_of_turn AS l
JOIN rounds AS o USING (casino, table_id, round_id)
WHERE l.step = 'shown'
ORDER BY casino, table_id, round_id, seat
