-- id: bank_not_covered
-- title: A player banked without covering the wagers against the bank (or co-banked without covering half of them)
-- severity: high
-- rule: pai gow poker procedure (11) (a player who cannot cover all wagers may co-bank 50/50 with the gaming operator; one who cannot cover 50% of the wagers cannot be in the co-bank and must pass the deal)
-- next: have the floorperson reconcile the round from the video and the chips the banker put up: a bank that could not pay its losses leaves the winners short or the house paying for the player; settle the shortfall, record why the bank was accepted, and review the dealer's handling of the bank
-- catches: co_bank_without_cover, bank_without_cover
-- Facts: a round banked by a player (rounds.banker 'seat N', or 'seat N co-bank' with the
-- house), classic pai gow poker or, by analogy (docs/rules.md 6a.14), pai gow tiles, with
-- the player banker's cover recorded (rounds.banker_cover_cents, schema id 3's
-- RoundStarted.banker_cover_cents). The wagers against the bank are the main wagers of the
-- other seats and the dealer's own main wager against the banker (procedure (10)); the
-- banker seat's own main wager, and the Fortune and Progressive wagers (paid by the house,
-- not booked by the banker: docs/rules.md 6a.14), are not. Offending rows: alone, a cover
-- below their total; co-banked, a cover below half of it (in integer cents: cover * 2 <
-- total). Lawful: a cover of exactly the total, or exactly half of it with a co-bank, and
-- anything above. Not evaluated, never a pass: a cover not recorded (every round under an
-- older vocabulary; checks/reports/vocabulary_unjudged.sql lists them with why).
-- recorded/expected are not returned: the cover is not money paid, so no amount at stake.
WITH banked AS (
    SELECT casino, table_id, round_id, banker, banker_cover_cents AS cover,
           TRY_CAST(regexp_extract(banker, '^seat (\d+)', 1) AS INTEGER) AS banker_seat,
           banker LIKE 'seat % co-bank' AS co_bank
    FROM rounds
    WHERE game IN ('pai_gow_poker', 'pai_gow_tiles') AND banker LIKE 'seat %'
      AND banker_cover_cents IS NOT NULL
), against AS (
    SELECT b.casino, b.table_id, b.round_id, any_value(b.banker_seat) AS banker_seat,
           any_value(b.cover) AS cover, any_value(b.co_bank) AS co_bank,
           sum(CAST(w.amount_cents AS HUGEINT)) AS total
    FROM banked AS b
    JOIN wagers AS w USING (casino, table_id, round_id)
    WHERE w.wager = 'main' AND w.seat IS DISTINCT FROM b.banker_seat
    GROUP BY b.casino, b.table_id, b.round_id
)
SELECT
    casino,
    table_id,
    round_id,
    banker_seat AS seat,
    'seat ' || banker_seat || CASE WHEN co_bank THEN ' co-banked with the house, covering '
                                   ELSE ' banked alone, covering ' END
        || cover || ' cents of the ' || CAST(total AS VARCHAR)
        || ' cents wagered against the bank' || CASE
            WHEN co_bank THEN ' (half of them is ' || CAST((total + 1) // 2 AS VARCHAR)
                              || '; a player who cannot cover half passes the deal)'
            WHEN CAST(cover AS HUGEINT) * 2 >= total
                THEN ' (enough for a 50/50 co-bank with the house, which was not recorded)'
            ELSE ' (not even half: the player passes the deal)' END AS detail
FROM against
WHERE CASE WHEN co_bank THEN CAST(cover AS HUGEINT) * 2 < total ELSE cover < total END
ORDER BY casino, table_id, round_id
