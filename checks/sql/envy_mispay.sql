-- id: envy_mispay
-- title: Envy Bonus mispaid: a seat received a different Envy Bonus than the rules require (paid without a Qualifying Wager, paid too much or too little, owed and not paid)
-- severity: high
-- rule: 58 Pa. Code § 688a.7(h)(2)(ii) and § 688a.1 (Qualifying Wager, Envy Bonus Qualifying Hand); docs/rules.md 6a.11
-- next: review the round's video for the Envy payment and the seat's Fortune/Progressive wager; recover an overpay or pay the shortfall, and log it against the dealer
SELECT
    e.casino,
    e.round_id,
    e.table_id,
    e.seat,
    e.recorded_cents,
    e.expected_cents,
    'Envy Bonus: recorded ' || e.recorded_cents || ', expected ' || e.expected_cents
        || ' (cents)' || CASE WHEN NOT e.qualifying_wager THEN '; the seat holds no Fortune or Progressive wager' ELSE '' END
        AS detail
FROM envy AS e
JOIN rounds AS r USING (casino, table_id, round_id)
WHERE r.evaluated
  AND e."row" = 'total'
  AND e.expected_cents IS NOT NULL
  AND e.recorded_cents <> e.expected_cents
ORDER BY e.casino, e.table_id, e.round_id, e.seat
