-- id: commission_on_push_or_loss
-- title: Commission charged on a wager recorded as a push or a loss
-- severity: high
-- rule: commission is charged on winning wagers only: pai gow poker settlement (15) and 58 Pa. Code § 688a.7(f); PR pai gow tiles ¶ K (vigorish on winnings); docs/rules.md 6 and 6a
-- next: pull the round's video and the chip count of the commission; refund the commission to the patron and record the correction against the dealer
-- catches: commission_on_push_or_loss
-- Offending rows: every settled wager (not the player banker's account, which banker_mispay
-- checks) whose recorded outcome is a push or a loss and whose recorded commission is not
-- zero, whatever its net: a push recorded with a commission and a correct net is still
-- flagged. recorded/expected are the commission's effect on the patron's net (minus the
-- commission; the rules allow none), so that over and under mean what they mean for every
-- money flag: the patron was paid too much or too little.
SELECT
    w.casino,
    w.round_id,
    w.table_id,
    w.seat,
    w.wager,
    -w.recorded_commission_cents AS recorded_cents,
    0::BIGINT AS expected_cents,
    w.game || ' ' || w.position || ' ' || w.wager || ': recorded ' || w.recorded_outcome
        || ' with a commission of ' || w.recorded_commission_cents
        || ' cents; no commission is charged on a ' || w.recorded_outcome AS detail
FROM wager_exceptions AS w
WHERE w.recorded_outcome IN ('push', 'loss')
  AND coalesce(w.recorded_commission_cents, 0) <> 0
  AND w.position <> 'banker'
ORDER BY w.casino, w.table_id, w.round_id, w.seat, w.wager
