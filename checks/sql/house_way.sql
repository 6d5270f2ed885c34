-- id: house_way
-- title: Dealer's hand not set by the house way (any setting the written house way allows conforms)
-- severity: medium
-- rule: pai gow poker procedure (4); 58 Pa. Code § 688a.7(e); PR pai gow tiles ¶ D; docs/rules.md 1.3 and 3.4
-- next: check the dealer's setting against the posted house way on video; if it was set wrongly, log it against the dealer and re-settle the seats it affected
-- catches: dealer_not_house_way
SELECT
    h.casino,
    h.round_id,
    h.table_id,
    NULL::INTEGER AS seat,
    NULL::BIGINT AS recorded_cents,
    NULL::BIGINT AS expected_cents,
    h.game || ': dealer set ' || coalesce(h.high, '?') || ' / ' || coalesce(h.low, '?')
        || ', which the house way does not allow' AS detail
FROM hands AS h
ANTI JOIN unjudged AS u USING (casino, table_id, round_id)
WHERE h.position = 'dealer'
  AND h.house_way = false
ORDER BY h.casino, h.table_id, h.round_id
