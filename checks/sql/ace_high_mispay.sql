-- id: ace_high_mispay
-- title: Ace High Bonus mispaid: paid when the dealer had no Ace High Pai Gow, not paid when it did, or paid at the wrong odds
-- severity: high
-- rule: 58 Pa. Code § 688a.7(h)(1) (the Ace High Bonus loses unless the dealer has an Ace High Pai Gow) and § 688a.1 ("Ace High Pai Gow"); docs/rules.md 2.2, 6 (the posted Ace High paytable), 6a.8, 6a.9, 6a.12
-- next: pull the round's video at the time shown and read the dealer's seven cards (and the player's, for the 40 to 1 line); recover a payment the dealer's hand did not earn or pay what it did, and log it against the dealer
-- catches: ace_high_mispaid
-- Offending rows: every Ace High Bonus wager (Face Up pai gow, wager ace_high) of a judged
-- round whose recorded net differs from the expected net. Whether the dealer held an Ace
-- High Pai Gow is not written by replay; the expected outcome says it (the wager wins only
-- when the dealer held one: 6a.9), and the detail says so. recorded/expected: the wager's
-- net; the same wager is also one of paid_loser, collected_winner, overpay or underpay,
-- which count the money of every wrong net, this check naming the wager.
SELECT
    w.casino,
    w.round_id,
    w.table_id,
    w.seat,
    w.wager,
    w.recorded_net_cents AS recorded_cents,
    w.expected_net_cents AS expected_cents,
    CASE WHEN w.expected_outcome = 'win'
         THEN 'the dealer held an Ace High Pai Gow: the Ace High Bonus of '
              || w.amount_cents || ' wins ' || w.expected_net_cents
         ELSE 'the dealer held no Ace High Pai Gow: the Ace High Bonus of ' || w.amount_cents
              || ' is ' || w.expected_outcome || ' ' || w.expected_net_cents END
        || '; recorded ' || coalesce(w.recorded_outcome, '?') || ' ' || w.recorded_net_cents
        || ' (cents)' AS detail
FROM wager_exceptions AS w
ANTI JOIN unjudged AS u USING (casino, table_id, round_id)
WHERE w.wager = 'ace_high'
  AND w.recorded_net_cents IS NOT NULL
  AND w.expected_net_cents IS NOT NULL
  AND w.recorded_net_cents NOT BETWEEN w.expected_net_min_cents AND w.expected_net_max_cents
ORDER BY w.casino, w.table_id, w.round_id, w.seat, w.wager
