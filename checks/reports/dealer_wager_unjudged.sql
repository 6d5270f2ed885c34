-- report: dealer_wager_unjudged
-- title: Player-banked pai gow poker rounds whose dealer's wager the check dealer_wager_not_preceding could not judge, and why
-- rule: pai gow poker procedure (10)
-- A report, not a check: these rounds are not evaluated (neither passed nor flagged) by
-- checks/sql/dealer_wager_not_preceding.sql, which orders a table's rounds and finds the
-- preceding dealer-banked hand and the banker (the patron, else the seat) the same way.
-- Columns: casino, table_id, round_id, seat (the banker's), dealer_cents (the dealer's
-- wager, null when none was recorded) and why.
-- Reads dealer_wager_against (checks/sql/_views/81_dealer_wager_against.sql), shared with
-- the check.
SELECT a.casino, a.table_id, a.round_id, a.banker_seat AS seat, a.dealer_cents,
       CASE WHEN a.dealt_at IS NULL
                THEN 'the round has no start time: it cannot be placed among its table''s rounds'
            WHEN a.preceding_round IS NULL
                THEN 'no earlier hand banked by the dealer at this table'
            WHEN a.elsewhere_patron IS NOT NULL
                THEN 'the banker''s patron is not recorded (no wager of seat ' || a.banker_seat
                     || ' names one), and patron ' || a.elsewhere_patron || ', who sat at seat '
                     || a.banker_seat || ' on the preceding dealer-banked hand '
                     || a.preceding_round || ', plays at seat ' || a.now_at || ' now'
            WHEN a.banker_patron IS NOT NULL
                THEN 'patron ' || a.banker_patron || ' (the banker at seat ' || a.banker_seat
                     || ') placed no main wager on the preceding dealer-banked hand '
                     || a.preceding_round
            ELSE 'seat ' || a.banker_seat || ' placed no main wager on the preceding '
                 || 'dealer-banked hand ' || a.preceding_round END AS why
FROM dealer_wager_against AS a
WHERE a.preceding_cents IS NULL AND NOT a.matched_other
ORDER BY a.casino, a.table_id, a.round_id
