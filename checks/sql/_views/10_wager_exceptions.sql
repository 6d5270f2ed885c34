-- wager_exceptions: every wager whose recorded settlement falls outside the lawful one in any
-- way: a net or a commission outside its lawful range (docs/rules.md 6a.19); another outcome;
-- a win whose net and commission do not add up to the amount won; never settled; or a round
-- not judged, whose expected settlement is null. A wager settled lawfully is not in it.
-- Read by the money checks (overpay, underpay, paid_loser, commission_wrong, ...), so that
-- each reads these few rows instead of scanning every wager.
SELECT * FROM wagers
WHERE recorded_net_cents IS NULL OR expected_net_cents IS NULL
   OR recorded_net_cents NOT BETWEEN expected_net_min_cents AND expected_net_max_cents
   OR recorded_commission_cents IS NULL AND expected_commission_cents IS NOT NULL
   OR recorded_commission_cents NOT BETWEEN expected_commission_min_cents
                                    AND expected_commission_max_cents
   OR recorded_outcome IS DISTINCT FROM expected_outcome
   OR recorded_outcome = 'win' AND recorded_net_cents + recorded_commission_cents
      <> expected_net_cents + expected_commission_cents
