-- id: envy_own_or_dealer_hand
-- title: Envy Bonus paid for the player's own hand or for the dealer's hand
-- severity: high
-- rule: 58 Pa. Code § 688a.7(h)(2)(ii) ("A player is not entitled to an Envy Bonus for his own hand or the hand of the dealer"); docs/rules.md 2.4, 6a.11
-- next: review the video of the Envy payment, recover it from the player, and retrain the dealer on Envy eligibility
-- catches: envy_for_own_or_dealer_hand
-- Offending rows: every recorded Envy payment (envy rows 'payment') for the receiving seat's
-- own hand or for the dealer's hand (for_seat null), judged round or not: no such payment is
-- ever owed. The whole payment is the money at stake (recorded = the payment, expected = 0).
-- This check owns the money of such a payment: when the seat also holds no Qualifying Wager,
-- envy_without_qualifying_wager flags the same payment without amounts, and neither
-- envy_mispay nor envy_owed_not_paid counts it.
SELECT
    e.casino,
    e.round_id,
    e.table_id,
    e.seat,
    e.recorded_cents,
    0::BIGINT AS expected_cents,
    'Envy Bonus of ' || e.recorded_cents || ' cents paid to seat ' || e.seat || ' for '
        || CASE WHEN e.for_seat IS NULL THEN 'the dealer''s hand' ELSE 'its own hand' END AS detail
FROM envy AS e
WHERE e."row" = 'payment'
  AND (e.for_seat IS NULL OR e.for_seat = e.seat)
ORDER BY e.casino, e.table_id, e.round_id, e.seat, e.for_seat NULLS FIRST, e.recorded_cents
