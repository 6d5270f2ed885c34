-- id: banker_mispay
-- title: Player banker's account settled wrong (net or commission), co-bank share included
-- severity: high
-- rule: pai gow poker settlement (13), (14), (15) and procedure (11) (co-bank 50/50); docs/rules.md 6a.14
-- next: pull the round's video and the banker's chip count, recompute the bank's net and commission with the table supervisor, and correct the banker's account before the bank passes
SELECT
    b.casino,
    b.round_id,
    b.table_id,
    b.seat,
    b.recorded_net_cents AS recorded_cents,
    b.expected_net_cents AS expected_cents,
    CASE WHEN b.recorded_net_cents IS NULL THEN 'the banker''s account was never settled'
         ELSE 'banker at seat ' || b.seat || CASE WHEN b.co_bank THEN ' (co-bank)' ELSE '' END
              || ': recorded net ' || b.recorded_net_cents || ' commission '
              || b.recorded_commission_cents || ', expected net ' || b.expected_net_cents
              || ' commission ' || b.expected_commission_cents || ' (cents)' END AS detail
FROM bankers AS b
JOIN rounds AS r USING (casino, table_id, round_id)
WHERE r.evaluated
  AND b.expected_net_cents IS NOT NULL
  AND (b.recorded_net_cents IS NULL
       OR b.recorded_net_cents <> b.expected_net_cents
       OR b.recorded_commission_cents <> b.expected_commission_cents)
ORDER BY b.casino, b.table_id, b.round_id
