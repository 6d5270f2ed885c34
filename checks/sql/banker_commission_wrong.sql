-- id: banker_commission_wrong
-- title: Player banker's commission wrong: not 5% of a winning bank (as the ruleset rounds it), or taken from a bank that did not win
-- severity: high
-- rule: pai gow poker settlement (14), (15), (16) (the rest of the stack paid to the player banker less 5%; no commission on a push or a loss); docs/rules.md 1.2, 6a.1, 6a.2, 6a.14 (5% of a positive banker share; tiles vigorish by analogy)
-- next: recompute the bank's commission with the table supervisor from the ruleset's rate and rounding; refund an overcharge or collect the shortfall from the banker, and log it against the dealer
-- Offending rows: the player banker's account (alone or co-banked) of a judged round whose
-- recorded commission differs from the expected one, flagged even when the net is right. A
-- wrong net is banker_mispay's or co_bank_share_wrong's. recorded/expected are the
-- commission's effect on the banker's net (minus the commission), as commission_wrong does
-- for the players, so that over and under mean what they mean for every money flag: a
-- commission too small overpays the banker, one too large underpays.
SELECT
    b.casino,
    b.round_id,
    b.table_id,
    b.seat,
    -b.recorded_commission_cents AS recorded_cents,
    -b.expected_commission_cents AS expected_cents,
    CASE WHEN b.co_bank THEN 'co-banker' ELSE 'banker' END || ' at seat ' || b.seat
        || ': commission recorded ' || b.recorded_commission_cents || ', the rules require '
        || b.expected_commission_cents || ' (cents; expected net ' || b.expected_net_cents
        || ')' AS detail
FROM bankers AS b
ANTI JOIN unjudged AS u USING (casino, table_id, round_id)
WHERE b.expected_commission_cents IS NOT NULL
  AND b.recorded_commission_cents IS NOT NULL
  AND b.recorded_commission_cents <> b.expected_commission_cents
ORDER BY b.casino, b.table_id, b.round_id
