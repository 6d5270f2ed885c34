-- id: banker_commission_wrong
-- title: Player banker's commission wrong: outside the lawful range of 5% of a winning bank (as the ruleset states it), or taken from a bank that did not win
-- severity: high
-- rule: pai gow poker settlement (14), (15), (16) (the rest of the stack paid to the player banker less 5%; no commission on a push or a loss); docs/rules.md 1.2, 6a.1, 6a.2, 6a.14 (5% of a positive banker share; tiles vigorish by analogy), 6a.19
-- next: recompute the bank's commission with the table supervisor from the ruleset's rate and rounding; refund an overcharge or collect the shortfall from the banker, and log it against the dealer
-- catches: banker_commission_wrong
-- Offending rows: the player banker's account (alone or co-banked) of a judged round whose
-- recorded commission is outside its lawful range [expected_commission_min_cents,
-- expected_commission_max_cents] (docs/rules.md 6a.19: in pai gow tiles from the exact 5%
-- to the next 25 cents, by analogy with 6a.2; 0 on a bank that did not win), flagged even
-- when the net is right. A wrong net is banker_mispay's or co_bank_share_wrong's.
-- recorded/expected are the commission's effect on the banker's net (minus the commission;
-- expected the nearer end of the range), as commission_wrong does for the players, so that
-- over and under mean what they mean for every money flag: a commission too small
-- overpays the banker, one too large underpays.
SELECT
    b.casino,
    b.round_id,
    b.table_id,
    b.seat,
    -b.recorded_commission_cents AS recorded_cents,
    CASE WHEN b.recorded_commission_cents > b.expected_commission_max_cents
         THEN -b.expected_commission_max_cents
         ELSE -b.expected_commission_min_cents END AS expected_cents,
    CASE WHEN b.co_bank THEN 'co-banker' ELSE 'banker' END || ' at seat ' || b.seat
        || ': commission recorded ' || b.recorded_commission_cents || ', the rules require '
        || CASE WHEN b.expected_commission_min_cents = b.expected_commission_max_cents
                THEN CAST(b.expected_commission_cents AS VARCHAR)
                ELSE b.expected_commission_min_cents || ' to '
                     || b.expected_commission_max_cents || ' (the house collects '
                     || b.expected_commission_cents || ')' END
        || ' (cents; expected net ' || b.expected_net_cents || ')' AS detail
FROM bankers AS b
ANTI JOIN unjudged AS u USING (casino, table_id, round_id)
WHERE b.expected_commission_cents IS NOT NULL
  AND b.recorded_commission_cents IS NOT NULL
  AND b.recorded_commission_cents NOT BETWEEN b.expected_commission_min_cents
                                       AND b.expected_commission_max_cents
ORDER BY b.casino, b.table_id, b.round_id
