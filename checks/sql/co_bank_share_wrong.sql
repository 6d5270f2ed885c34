-- id: co_bank_share_wrong
-- title: Co-bank split wrong: the player banker's half of a bank shared with the house settled for the wrong net, or never settled
-- severity: high
-- rule: pai gow poker procedure (11) (a co-bank is shared with the house half and half, and only half and half); 58 Pa. Code § 621a.1 ("Co-banking"); pai gow poker settlement (13), (14), (15); docs/rules.md 1.2, 6a.14 (the banker's share is half the gross rounded toward zero, the house takes the rest), 6a.19 (the odd cent may go either way)
-- next: pull the round's video and the bank's chip count, recompute the split of the bank between the player and the house with the table supervisor, and correct the banker's account (and the table inventory) before the bank passes
-- catches: co_bank_share_wrong
-- Offending rows: the player banker's account of a judged co-banked round (co_bank true)
-- whose recorded net is outside its lawful range [expected_net_min_cents,
-- expected_net_max_cents] (docs/rules.md 6a.19: a gross that does not split evenly may give
-- its odd cent to either party, and the commission on the share ranges as the ruleset
-- says), or that was never settled. The
-- house's half is not recorded by the table, so only the player's share can be compared; a
-- wrong commission on the share is banker_commission_wrong's. recorded/expected: the
-- player banker's net, the expected the nearer end of the lawful range.
SELECT
    b.casino,
    b.round_id,
    b.table_id,
    b.seat,
    b.recorded_net_cents AS recorded_cents,
    CASE WHEN b.recorded_net_cents > b.expected_net_max_cents THEN b.expected_net_max_cents
         WHEN b.recorded_net_cents < b.expected_net_min_cents THEN b.expected_net_min_cents
         ELSE b.expected_net_cents END AS expected_cents,
    CASE WHEN b.recorded_net_cents IS NULL THEN 'the co-banker''s account was never settled'
         ELSE 'co-banker at seat ' || b.seat || ': recorded net ' || b.recorded_net_cents
              || ', expected share ' || b.expected_net_cents || CASE WHEN b.expected_net_min_cents < b.expected_net_max_cents
                   THEN ' (lawful ' || b.expected_net_min_cents || ' to '
                        || b.expected_net_max_cents || ')' ELSE '' END
              || ' (the house''s half: '
              || coalesce(CAST(b.expected_house_net_cents AS VARCHAR), 'unknown') || ') (cents)'
         END AS detail
FROM bankers AS b
ANTI JOIN unjudged AS u USING (casino, table_id, round_id)
WHERE coalesce(b.co_bank, false)
  AND b.expected_net_cents IS NOT NULL
  AND (b.recorded_net_cents IS NULL
       OR b.recorded_net_cents NOT BETWEEN b.expected_net_min_cents AND b.expected_net_max_cents)
ORDER BY b.casino, b.table_id, b.round_id
