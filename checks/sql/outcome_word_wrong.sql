-- id: outcome_word_wrong
-- title: Outcome recorded wrong, money right: a settlement recorded as a win, a loss, a push or a void other than the rules judge it, for a net within the lawful range
-- severity: low
-- rule: the rules say of every wager whether it wins, loses, ties (is returned) or is void, and the record must say the same: 58 Pa. Code § 688a.7(f)(1) (lose), (2) (tie, returned to the player), (3) (win); pai gow poker settlement (1), (5), (6), (9) (a hand winning one of the two pushes), (10) (push hands are indicated); PR pai gow tiles ¶ H (apuesta perdedora), ¶ I (empuje), ¶ J; Caribbean stud rules 9.2 (no hand: the bets are void), 9.4.1.1-9.4.1.3 (paid, collected, or a stand off); docs/rules.md 6a.2, 6a.19 (where the house may take the whole of a tiny win as vigorish), 8.1
-- next: correct the settlement's record (EventCorrected with the right outcome) from the video or the table device's log, and have the device's vendor or the dealer's procedure fixed: a record whose words contradict its money misleads every count of wins, losses and pushes (the hold report, a dispute), even when the patron was paid right
-- catches: outcome_word_wrong
-- Offending rows: every settled wager of a judged round, not voided, whose recorded outcome
-- word differs from the one the engine judged (wagers.expected_outcome) while its recorded
-- net is within the lawful range (expected_net_min_cents to expected_net_max_cents): the
-- money is right and the record is not (a push recorded as a win with net 0, a loss
-- recorded as a push for minus the wager). A wrong word with a wrong net is the money's
-- case, flagged by exactly one of overpay, underpay, paid_loser and collected_winner (high
-- or critical), not here: this check has one severity, low, for the record alone.
-- Lawful words that differ from the engine's and are not flagged:
-- * push for a void wager (the Caribbean stud raise when the dealer does not qualify): both
--   words say the wager was returned, net 0, as rule 9.4.1.3's "stand off" and
--   raise_not_qualified read them;
-- * push with net 0 for a win whose lawful range reaches 0: the house may round the
--   pai gow tiles vigorish up to the whole of a win of a few cents (docs/rules.md 6a.2,
--   6a.19), and the wager is then returned, neither won nor lost.
-- Not judged here: a round not evaluated (not_evaluated), a voided round (every wager is
-- returned whatever the word: void_without_reason and the money checks), a wager never
-- settled (unsettled), the player banker's own main wager (no expected outcome: its account
-- is banker_mispay's). A settlement replaced by a correction is judged as corrected (the
-- record replay keeps is the one standing: docs/rules.md 8.5), so a word put right by an
-- EventCorrected is never flagged. recorded: the net (right); no expected amount, so the
-- flag carries no money at stake.
SELECT
    w.casino,
    w.round_id,
    w.table_id,
    w.seat,
    w.wager,
    w.recorded_net_cents AS recorded_cents,
    w.game || ' ' || w.position || ' ' || w.wager || ' of ' || w.amount_cents
        || ': recorded ' || w.recorded_outcome || ' ' || w.recorded_net_cents
        || CASE WHEN coalesce(w.recorded_commission_cents, 0) <> 0
             THEN ' with a commission of ' || w.recorded_commission_cents ELSE '' END
        || ', the rules judge it ' || w.expected_outcome || ' ' || w.expected_net_cents
        || CASE WHEN w.expected_net_min_cents < w.expected_net_max_cents
             THEN ' (lawful ' || w.expected_net_min_cents || ' to ' || w.expected_net_max_cents
                  || ')' ELSE '' END
        || ' (cents): the money is right, the outcome word is not' AS detail
FROM wager_exceptions AS w
ANTI JOIN unjudged AS u USING (casino, table_id, round_id)
ANTI JOIN (SELECT casino, table_id, round_id FROM rounds WHERE voided) AS v
    USING (casino, table_id, round_id)
WHERE w.recorded_outcome IS NOT NULL
  AND w.expected_outcome IS NOT NULL
  AND w.recorded_outcome <> w.expected_outcome
  AND w.recorded_net_cents BETWEEN w.expected_net_min_cents AND w.expected_net_max_cents
  AND NOT (w.expected_outcome = 'void' AND w.recorded_outcome = 'push')
  AND NOT (w.expected_outcome = 'win' AND w.recorded_outcome = 'push'
           AND w.recorded_net_cents = 0)
ORDER BY w.casino, w.table_id, w.round_id, w.seat NULLS FIRST, w.wager
