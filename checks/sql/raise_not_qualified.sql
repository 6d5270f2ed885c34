-- id: raise_not_qualified
-- title: Caribbean stud raise won or lost when the dealer did not qualify (the raise is void and returned)
-- severity: high
-- rule: a dealer who does not qualify (ace and king or better) announces "no hand": the bets (raises) are void and returned, the antes paid: Caribbean stud rules 9.1, 9.2, 9.3, 9.3.1; docs/rules.md 4.2, 6 (Caribbean stud), 6a.17
-- next: pull the round's video at the time shown and read the dealer's five cards; return a raise taken or recover a raise paid, and log it against the dealer
-- catches: raise_paid_not_qualified
-- Offending rows: every raise of a judged, not voided round whose expected outcome is void
-- (in Caribbean stud the engine voids a raise only when the dealer did not qualify; a hand
-- conceded or folded is lost, never void) but which was recorded as a win or a loss, or
-- with a net other than zero; a raise recorded void or push with a zero net was returned.
-- Whether the dealer qualified is not written by replay: the expected void says it. A voided
-- round returns every wager and is excluded. recorded/expected: the raise's net (expected
-- 0); the same wager is also flagged by overpay or underpay, which count the money of every
-- wrong net, this check naming the cause.
SELECT
    w.casino,
    w.round_id,
    w.table_id,
    w.seat,
    w.wager,
    w.recorded_net_cents AS recorded_cents,
    w.expected_net_cents AS expected_cents,
    'the dealer did not qualify: seat ' || w.seat || '''s raise of ' || w.amount_cents
        || ' is void and returned, but was recorded ' || coalesce(w.recorded_outcome, '?')
        || ' ' || w.recorded_net_cents || ' (cents)' AS detail
FROM wager_exceptions AS w
JOIN rounds AS r USING (casino, table_id, round_id)
WHERE r.evaluated
  AND NOT coalesce(r.voided, false)
  AND w.wager = 'raise'
  AND w.expected_outcome = 'void'
  AND w.recorded_net_cents IS NOT NULL
  AND (w.recorded_outcome NOT IN ('void', 'push') OR w.recorded_outcome IS NULL
       OR w.recorded_net_cents <> 0)
ORDER BY w.casino, w.table_id, w.round_id, w.seat
