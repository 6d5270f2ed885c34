-- id: card_dealt_twice
-- title: A card dealt twice in a round (or a tile more often than the set holds it, or one party dealt twice)
-- severity: high
-- rule: docs/rules.md 1.1 (one deck of 53 cards: the 52 and one joker), 3.2 (the set of 32 tiles: two each of 11 faces, one each of the other 10; 58 Pa. Code § 621a.4), 8.1
-- next: pull the round's video and the deck or tile set: look for an extra card or tile (a cold deck, a card brought in), a misread by the table's device, or a re-deal; have the floorperson count the deck, and re-settle the round from what was really dealt
-- Offending rows: one per round, judged or not, in which a card was dealt to two parties or
-- twice to one (hands.cards across the round's hands; a tile, written pip-pip, counts as
-- dealt twice only beyond its copies in the set: twice for the 11 doubled faces of
-- docs/rules.md 3.2, else once), or a party was dealt twice (replay's fold, problem kind
-- dealt_twice: the second deal is not kept, so it is not in hands.cards). The rules engine
-- of every game refuses a round with a card or tile dealt beyond the deck or the set
-- (docs/rules.md 8.1: such a round is not evaluated, and not_evaluated flags it too), so the
-- cards are counted in the rounds not judged and those with dealt_twice only: the check stays
-- as fast as the others over millions of rounds, and says what is wrong.
WITH suspect AS (
    SELECT r.casino, r.table_id, r.round_id
    FROM rounds AS r
    WHERE r.evaluated IS NOT TRUE OR list_contains(r.problem_kinds, 'dealt_twice')
), dealt AS (
    SELECT h.casino, h.table_id, h.round_id, h.position, coalesce(h.seat, 0) AS seat_order,
           unnest(string_split(h.cards, ' ')) AS token
    FROM hands AS h
    SEMI JOIN suspect AS s USING (casino, table_id, round_id)
    WHERE h.cards IS NOT NULL
), counted AS (
    SELECT casino, table_id, round_id, token, count(*) AS times,
           string_agg(position, ', ' ORDER BY seat_order, position) AS holders,
           CASE WHEN token IN ('6-6', '1-1', '4-4', '1-3', '5-5', '3-3', '2-2', '5-6', '4-6',
                               '1-6', '1-5') THEN 2 ELSE 1 END AS copies
    FROM dealt
    WHERE token <> ''
    GROUP BY casino, table_id, round_id, token
), twice AS (
    SELECT casino, table_id, round_id,
           string_agg(CASE WHEN regexp_full_match(token, '[1-6]-[1-6]') THEN 'tile ' ELSE 'card ' END
                      || token || ' dealt ' || times || ' times (' || holders || ')'
                      || CASE WHEN copies > 1 THEN '; the set holds ' || copies ELSE '' END,
                      '; ' ORDER BY token) AS what
    FROM counted
    WHERE times > copies
    GROUP BY casino, table_id, round_id
), again AS (
    SELECT casino, table_id, round_id,
           coalesce(nullif(array_to_string(regexp_extract_all(problems,
               '(?:dealer|seat \d+) dealt (?:cards|tiles) twice \(table_seq \d+\)'), '; '), ''),
               'a party was dealt twice') AS what
    FROM rounds
    WHERE list_contains(problem_kinds, 'dealt_twice')
)
SELECT
    casino,
    round_id,
    table_id,
    NULL::INTEGER AS seat,
    concat_ws('; ', t.what, a.what) AS detail
FROM twice AS t
FULL JOIN again AS a USING (casino, table_id, round_id)
ORDER BY casino, table_id, round_id
