-- envy_paid: per seat paid an Envy Bonus, the payments (envy rows 'payment') that can be owed,
-- summed as owable (for another seat's hand, to a seat holding a Qualifying Wager: a Fortune
-- or Progressive wager of at least the ruleset's minimum, envy.qualifying_minimum_cents, or
-- of any amount where replay did not say the minimum), and those never owed (for the seat's
-- own hand or the dealer's, or without a Qualifying Wager), in cents (HUGEINT: no sum can
-- overflow). Read by envy_mispay and envy_owed_not_paid, which compare owable with the Envy
-- the rules require (the envy row 'total').
WITH payments AS (
    SELECT
        e.casino, e.table_id, e.round_id, e.seat,
        e.for_seat IS NOT NULL AND e.for_seat <> e.seat AND e.qualifying_wager IS TRUE
            AND coalesce(e.qualifying_wager_cents >= e.qualifying_minimum_cents, true)
            AS owable,
        e.recorded_cents
    FROM envy AS e
    WHERE e."row" = 'payment'
)
SELECT casino, table_id, round_id, seat,
       coalesce(sum(CAST(recorded_cents AS HUGEINT)) FILTER (WHERE owable), 0) AS owable,
       coalesce(sum(CAST(recorded_cents AS HUGEINT)) FILTER (WHERE NOT owable), 0) AS never_owed
FROM payments
GROUP BY ALL
