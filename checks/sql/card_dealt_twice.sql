-- id: card_dealt_twice
-- title: A card dealt twice in a round (or a tile more often than the set holds it, or one party dealt twice)
-- severity: high
-- rule: docs/rules.md 1.1 (one deck of 53 cards: the 52 and one joker), 3.2 (the set of 32 tiles: two each of 11 faces, one each of the other 10; 58 Pa. Code § 621a.4), 8.1
-- next: pull the round's video and the deck or tile set: look for an extra card or tile (a cold deck, a card brought in), a misread by the table's device, or a re-deal; have the floorperson count the deck, and re-settle the round from what was really dealt
-- catches: dealt_twice
-- Offending rows: one per round, judged or not, in which replay's fold saw a card dealt
-- more than once (to two parties, or twice to one), a tile dealt more often than the set
-- holds its face (twice for the 11 doubled faces of docs/rules.md 3.2, else once), or a
-- party dealt twice (problem kind dealt_twice; replay/fold.py). The rules engine judges such
-- a round as recorded, each hand as dealt (docs/rules.md 8.1), so every mispay in it is
-- flagged by its own check as well; only a hand that holds one card twice itself (or a tile
-- beyond its copies) has no rank, and its round is not evaluated (not_evaluated flags it
-- too). This check says what was dealt twice and where.
SELECT
    r.casino,
    r.round_id,
    r.table_id,
    NULL::INTEGER AS seat,
    coalesce(nullif(array_to_string(flatten(list_transform(coalesce(r.problems, []),
        lambda p: regexp_extract_all(p,
            '(?:(?:dealer|seat \d+) dealt (?:cards|tiles) twice \(table_seq \d+\)'
            || '|(?:card|tile) \S+ dealt \d+ times in the round \([^)]*\) at table_seq \d+'
            || '(?:; the set holds \d+)?)'))), '; '), ''),
        'a card, a tile or a party dealt twice') AS detail
FROM round_problems AS r
WHERE list_contains(r.problem_kinds, 'dealt_twice')
ORDER BY r.casino, r.table_id, r.round_id
