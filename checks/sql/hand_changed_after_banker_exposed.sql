-- id: hand_changed_after_banker_exposed
-- title: Pai gow poker: a hand changed by the dealer, or set again by a player, after the banker's hand was exposed
-- severity: high
-- rule: pai gow poker procedure (9) (the dealer may change an exposed hand until the player banker's hand is exposed; afterwards no change is permitted) and (6) (players shall not touch their cards for any reason after the player banker's cards are shown)
-- next: pull the video of the round: a hand changed or set again once the banker's hand was known was set knowing what it plays against; settle the wager on the hand as it stood when the banker's hand was exposed (docs/rules.md 8.2), report it to the shift manager and log it against the dealer
-- catches: hand_changed_after_banker_exposed, player_reset_after_banker_exposed
-- Facts: the order of events within the round (the timeline, by table_seq; occurred_at is
-- shown, never used to order). The banker's hand is exposed at the banker's first
-- HandsExposed (position 'banker', the player banker's seat, co-banked too) or, in a round
-- the dealer banks, the dealer's. Offending rows: a HandChanged (the dealer changing an
-- exposed hand: a player's, the player banker's or the dealer's own) after that exposure,
-- in rounds recorded under schema id 3 (rounds.vocabulary >= 3, the only vocabulary with
-- the event), and a player's HandSet (a seat other than the banker's) after it, in any
-- round. Lawful: the dealer changing an exposed hand before the banker's hand is exposed,
-- players setting again before it (docs/rules.md 8.2), and the banker's own setting before
-- its exposure; a corrected event stands where the event it corrects stood (the view play:
-- a correction recorded later fixes the record of what was done then). A round without
-- the banker's exposure is not judged here; the HandChanged of a round under an older
-- vocabulary is not evaluated (checks/reports/vocabulary_unjudged.sql). A player's late
-- setting is also an order fault for hands_set_out_of_order. replay's fold records a late
-- HandChanged as the problem hand_changed_after_banker_exposed (the setting before it
-- stands), which irregular_round leaves to this check.
WITH poker AS (
    SELECT casino, table_id, round_id, banker, coalesce(vocabulary >= 3, false) AS v3
    FROM rounds
    WHERE game = 'pai_gow_poker'
), exposed AS (
    SELECT p.casino, p.table_id, p.round_id, any_value(p.v3) AS v3,
           any_value(p.banker) AS banker, min(e.table_seq) AS exposed_seq
    FROM play AS e
    JOIN poker AS p USING (casino, table_id, round_id)
    WHERE e.event = 'hands exposed'
      AND e.position = CASE WHEN p.banker = 'dealer' THEN 'dealer' ELSE 'banker' END
    GROUP BY p.casino, p.table_id, p.round_id
)
SELECT
    e.casino,
    e.table_id,
    e.round_id,
    e.seat,
    CASE WHEN e.event = 'hand changed'
         THEN 'the dealer changed ' || CASE e.position WHEN 'dealer' THEN 'the dealer''s'
                                                     WHEN 'banker' THEN 'the player banker''s'
                                                     ELSE e.position || '''s' END
              || ' hand'
         ELSE e.position || ' set its hand again' END
        || ' (table_seq ' || e.table_seq || ', '
        || strftime(e.occurred_at, '%Y-%m-%dT%H:%M:%S.%fZ') || ') after '
        || CASE WHEN x.banker = 'dealer' THEN 'the dealer''s (the banker''s)'
                ELSE 'the player banker''s' END
        || ' hand was exposed (table_seq ' || x.exposed_seq || ')' AS detail
FROM play AS e
JOIN exposed AS x USING (casino, table_id, round_id)
WHERE e.table_seq > x.exposed_seq
  AND (e.event = 'hand changed' AND x.v3
       OR e.event = 'hand set' AND e.position LIKE 'seat %')
ORDER BY e.casino, e.table_id, e.round_id, e.table_seq
