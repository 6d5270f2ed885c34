-- id: bank_passed_not_followed
-- title: The bank passed to one banker, and the next round at the table banked by another
-- severity: medium
-- rule: pai gow poker procedure (11) (a player who wishes to bank when it is his or her turn but cannot cover the wagers co-banks 50/50 with the gaming operator, or passes the deal); docs/rules.md 6a.20 (the BankPassed the table records is its own record of who banks the next round)
-- next: pull the video of both rounds named in the detail: if the bank went to someone other than the player whose turn it was (or who was passed the deal), have the floorperson record why; a bank that skips a player, or lands again on the same one, is how a bank is steered to an accomplice
-- catches: bank_passed_not_followed
-- Facts: the last BankPassed standing in a round recorded under schema id 3
-- (rounds.vocabulary >= 3, the only vocabulary with the event; timeline bank_to 'dealer'
-- or 'seat N'), and who banks the next round at the same casino and table in the order
-- rounds were dealt (dealt_at, then round id, as the other checks order a table's rounds):
-- rounds.banker, 'dealer', 'seat N' or 'seat N co-bank' (the player banks with the house:
-- the same banker). Offending rows: the round whose bank passed to one banker when the
-- next round was banked by another. Not flagged: a round with no next round at its table in
-- the outputs (or, with --since, in the window), a round without a start time, and a round
-- without a BankPassed (nothing said of the next banker); a round under an older vocabulary
-- is not evaluated (checks/reports/vocabulary_unjudged.sql). A corrected BankPassed stands
-- where the event it corrects stood; one struck says nothing.
WITH passed AS (
    SELECT t.casino, t.table_id, t.round_id,
           arg_max(t.bank_to, t.stands_at) AS bank_to,
           arg_max(t.bank_reason, t.stands_at) AS bank_reason,
           max(t.stands_at) AS passed_seq
    FROM timeline AS t
    SEMI JOIN (SELECT casino, table_id, round_id FROM rounds WHERE vocabulary >= 3) AS r
        USING (casino, table_id, round_id)
    WHERE t.stands_at IS NOT NULL AND coalesce(t.replacement, t.event) = 'bank passed'
    GROUP BY t.casino, t.table_id, t.round_id
), ordered AS (
    SELECT casino, table_id, round_id,
           lead(round_id) OVER w AS next_round, lead(banker) OVER w AS next_banker
    FROM rounds
    WHERE dealt_at IS NOT NULL
    WINDOW w AS (PARTITION BY casino, table_id ORDER BY dealt_at, round_id)
)
SELECT
    p.casino,
    p.table_id,
    p.round_id,
    TRY_CAST(regexp_extract(p.bank_to, '^seat (\d+)$', 1) AS INTEGER) AS seat,
    'the bank passed to ' || coalesce(p.bank_to, 'no one named')
        || coalesce(' (' || replace(p.bank_reason, '_', ' ') || ')', '')
        || ' (table_seq ' || p.passed_seq || '), but the next round at the table, '
        || o.next_round || ', was banked by ' || coalesce(o.next_banker, 'no one recorded')
        AS detail
FROM passed AS p
JOIN ordered AS o USING (casino, table_id, round_id)
WHERE o.next_round IS NOT NULL
  AND o.next_banker IS DISTINCT FROM p.bank_to
  AND o.next_banker IS DISTINCT FROM p.bank_to || ' co-bank'
ORDER BY p.casino, p.table_id, p.round_id
