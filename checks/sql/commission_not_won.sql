-- id: commission_not_won
-- title: Commission charged on a wager the rules do not make a win, recorded as a win or a void
-- severity: high
-- rule: commission is charged on winning wagers only: pai gow poker settlement (15) (collected at the time of payment of a winning bet), (16) (no commission from pushes or from losing wagers); 58 Pa. Code § 688a.7(f); PR pai gow tiles ¶ K (vigorish on winnings); Caribbean stud rule 9.2 (a void bet does not play); docs/rules.md 6, 6a.1, 6a.2
-- next: pull the round's video and the chip count of the commission; refund the commission to the patron, correct the settlement's record (its outcome and commission), and log it against the dealer
-- catches: none
-- Offending rows: every settled wager of a judged round (not the player banker's account,
-- which banker_commission_wrong checks) whose recorded commission is not zero, recorded as
-- a win or a void, while the rules judge it a push, a loss or a void: the commission of a
-- wager that won nothing. commission_on_push_or_loss judges the commission of a wager
-- recorded as a push or a loss, commission_wrong that of a wager recorded and judged a win;
-- before this check a commission recorded on a void, or on a win the rules do not make one,
-- was judged by nothing but the net it made. The flag carries no amounts: when the net is
-- lawful the patron's money is right and the commission is the record's (as commission_wrong
-- says of a commission that does not match the net), and when the net is wrong the money
-- is counted by the one settlement check that flags it (overpay, underpay, paid_loser,
-- collected_winner), never twice; the detail gives the commission.
SELECT
    w.casino,
    w.round_id,
    w.table_id,
    w.seat,
    w.wager,
    w.game || ' ' || w.position || ' ' || w.wager || ': recorded ' || w.recorded_outcome
        || ' ' || w.recorded_net_cents || ' with a commission of '
        || w.recorded_commission_cents || ' cents; the rules judge it ' || w.expected_outcome
        || ' ' || w.expected_net_cents || ', and no commission is charged on a '
        || w.expected_outcome AS detail
FROM wager_exceptions AS w
ANTI JOIN unjudged AS u USING (casino, table_id, round_id)
WHERE w.recorded_outcome IN ('win', 'void')
  AND w.expected_outcome IN ('push', 'loss', 'void')
  AND coalesce(w.recorded_commission_cents, 0) <> 0
  AND w.position <> 'banker'
ORDER BY w.casino, w.table_id, w.round_id, w.seat NULLS FIRST, w.wager
