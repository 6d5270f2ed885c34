-- id: commission_not_won
-- title: Commission recorded on a wager the rules do not make a win, recorded as a win or a void, its net right
-- severity: low
-- rule: commission is charged on winning wagers only: pai gow poker settlement (15) (collected at the time of payment of a winning bet), (16) (no commission from pushes or from losing wagers); 58 Pa. Code § 688a.7(f); PR pai gow tiles ¶ K (vigorish on winnings); Caribbean stud rule 9.2 (a void bet does not play); docs/rules.md 6, 6a.1, 6a.2
-- next: pull the round's video and the chip count of the commission: if a commission was taken from the patron, refund it; otherwise correct the settlement's record (EventCorrected with its outcome and commission), and have the device's vendor or the dealer's procedure fixed
-- catches: none
-- Offending rows: every settled wager of a judged round (not the player banker's account,
-- which banker_commission_wrong checks) whose recorded commission is not zero, recorded as
-- a win or a void, while the rules judge it a push, a loss or a void, and whose recorded net
-- is within its lawful range: the patron's money is right, and the record says a commission
-- was taken on a wager that won nothing (a push recorded as a win for 0 less a commission,
-- a void raise returned less one). commission_on_push_or_loss judges the commission of a
-- wager recorded as a push or a loss, commission_wrong that of a wager recorded and judged
-- a win; before this check such a commission was judged by nothing. With a net outside its
-- range the fault is the money's, and the commission taken on a loser paid or a push paid
-- follows it: one of overpay, underpay, paid_loser, collected_winner counts it (with the
-- cause checks, foul_settled_as_win ...), not this check. No amounts: the money is right.
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
  AND w.recorded_net_cents BETWEEN w.expected_net_min_cents AND w.expected_net_max_cents
  AND w.position <> 'banker'
ORDER BY w.casino, w.table_id, w.round_id, w.seat NULLS FIRST, w.wager
