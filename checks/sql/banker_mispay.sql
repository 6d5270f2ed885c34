-- id: banker_mispay
-- title: Player banker's account settled for the wrong net, or never settled (a bank the player held alone)
-- severity: high
-- rule: pai gow poker settlement (13), (14), (15) (the losing wagers stacked, the winners paid from the stack, the rest to the player banker less 5%); docs/rules.md 1.2, 6a.14, 6a.19
-- next: pull the round's video and the banker's chip count, recompute the bank's net with the table supervisor, and correct the banker's account before the bank passes
-- catches: banker_mispaid
-- Offending rows: the player banker's account of a judged round the player banked alone
-- (co_bank false) whose recorded net is outside its lawful range [expected_net_min_cents,
-- expected_net_max_cents] (docs/rules.md 6a.19: the banker's commission from its lowest to
-- its highest lawful amount, pai gow tiles by analogy), or that was never settled. A
-- co-bank's account is co_bank_share_wrong's; a wrong commission is
-- banker_commission_wrong's (flagged even when the net is right), so that each fault of the
-- bank is counted by the one check that names it. recorded/expected: the banker's net, the
-- expected the nearer end of the lawful range.
SELECT
    b.casino,
    b.round_id,
    b.table_id,
    b.seat,
    b.recorded_net_cents AS recorded_cents,
    CASE WHEN b.recorded_net_cents > b.expected_net_max_cents THEN b.expected_net_max_cents
         WHEN b.recorded_net_cents < b.expected_net_min_cents THEN b.expected_net_min_cents
         ELSE b.expected_net_cents END AS expected_cents,
    CASE WHEN b.recorded_net_cents IS NULL THEN 'the banker''s account was never settled'
         ELSE 'banker at seat ' || b.seat || ': recorded net ' || b.recorded_net_cents
              || ' (commission ' || coalesce(CAST(b.recorded_commission_cents AS VARCHAR), 'none')
              || '), expected net ' || b.expected_net_cents || CASE WHEN b.expected_net_min_cents < b.expected_net_max_cents
                   THEN ' (lawful ' || b.expected_net_min_cents || ' to '
                        || b.expected_net_max_cents || ')' ELSE '' END
              || ' (commission '
              || coalesce(CAST(b.expected_commission_cents AS VARCHAR), 'none') || ') (cents)'
         END AS detail
FROM bankers AS b
ANTI JOIN unjudged AS u USING (casino, table_id, round_id)
WHERE NOT coalesce(b.co_bank, false)
  AND b.expected_net_cents IS NOT NULL
  AND (b.recorded_net_cents IS NULL
       OR b.recorded_net_cents NOT BETWEEN b.expected_net_min_cents AND b.expected_net_max_cents)
ORDER BY b.casino, b.table_id, b.round_id
