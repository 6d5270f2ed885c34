"""Face Up pai gow poker rounds, judged to the cent (58 Pa. Code § 688a.1, § 688a.7(f),
(h); docs/rules.md 2, 6 "Face Up", 6a.6-6a.13, 6a.18).

Every round here is built by hand and every expected amount is worked out from the shipped
ruleset's posted tables (docs/rules.md 6) in the comment beside it; none comes from the code
under test. Tests are named after the clause they test.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from replay.adjudicate import judge_document as adjudicate
from replay.cards import DECK_52, DECK_53, Card, parse_cards
from replay.document import DocumentError
from replay.errors import RoundError, RulesetError, UnknownRulesetError
from replay.games import find_game
from replay.games.face_up_pai_gow import (
    GAME,
    RULES,
    BonusHand,
    SevenCardClass,
    is_ace_high_pai_gow,
    judge_document,
    settle_bonus_wagers,
)
from replay.games.pai_gow_poker import Outcome, compare, house_way, is_foul, splits
from replay.rulesets import load_ruleset, ruleset_from_dict
from tests.conftest import run_cli

RULESET_ID = "face_up_pai_gow-pa688a-v1"
RULESET = load_ruleset(RULESET_ID)


def seat(number: int, cards: str | None = None, *, high: str | None = None,
         low: str | None = None, **wagers: int) -> dict[str, Any]:
    """A seat: its seven cards (high + low when set and ``cards`` is not given)."""
    out: dict[str, Any] = {"seat": number}
    if cards is None:
        assert high is not None and low is not None
        cards = f"{high} {low}"
    out["cards"] = cards.split()
    if high is not None and low is not None:
        out["high"], out["low"] = high.split(), low.split()
    out["action"] = "play"
    out["wagers"] = dict(wagers)
    return out


def doc(dealer: tuple[str, str], *seats: dict[str, Any], meter: int | None = None,
        round_id: str = "r-1") -> dict[str, Any]:
    high, low = dealer
    out: dict[str, Any] = {
        "round_id": round_id, "game": GAME, "ruleset": RULESET_ID,
        "dealer": {"cards": f"{high} {low}".split(), "high": high.split(), "low": low.split()},
        "seats": list(seats),
    }
    if meter is not None:
        out["progressive_meter"] = meter
    return out


def judge(document: dict[str, Any]) -> dict[str, Any]:
    return judge_document(document, RULESET)


def wager(result: dict[str, Any], number: int, name: str) -> dict[str, Any]:
    (found,) = [s for s in result["seats"] if s["seat"] == number]
    out: dict[str, Any] = found["wagers"][name]
    return out


def envy(result: dict[str, Any]) -> dict[int, int]:
    return {s["seat"]: s["envy"] for s in result["seats"]}


def win(net: int) -> dict[str, Any]:
    return {"outcome": "win", "net": net, "commission": 0}


def meter_win(net: int, high: int) -> dict[str, Any]:
    """A share of the meter paid ``net`` (rounded down), lawful up to ``high`` (rounded up:
    docs/rules.md 6a.13, 6a.19)."""
    return {**win(net), "net_range": [net, high], "commission_range": [0, 0]}


def loss(amount: int) -> dict[str, Any]:
    return {"outcome": "loss", "net": -amount, "commission": 0}


PUSH = {"outcome": "push", "net": 0, "commission": 0}

# The dealer's hands, set by the house way of docs/rules.md 1.3.
# One pair: the pair of 8s behind, the next two highest (K, 9) in front. Not Ace High Pai Gow.
DEALER_EIGHTS = ("8c 8d 4c 3d 2h", "Kh 9s")
# No pair, ace high (A K 9 7 5 3 2: no straight, 4 missing; no flush): the highest card behind,
# the next two (K, 9) in front. Ace High Pai Gow without the joker (6a.8).
DEALER_ACE_HIGH = ("As 7h 5s 3d 2c", "Kd 9c")
# The same with the joker for the ace: Ace High Pai Gow with the joker (joker 2 3 5 7 9 K:
# no five in sequence even with the joker; no flush).
DEALER_ACE_HIGH_JOKER = ("Jk 7h 5s 3d 2c", "Kd 9c")


# ---------------------------------------------------------------------------------------
# The result form of `python -m replay adjudicate`
# ---------------------------------------------------------------------------------------


def test_result_has_exactly_the_issue_form_and_key_order() -> None:
    result = judge(doc(DEALER_EIGHTS,
                       seat(1, high="Tc Td 7s 6h 5c", low="Ah Qc",
                            main=2500, ace_high=500, fortune=500, progressive=100),
                       meter=2_500_000, round_id="r-17"))
    expected = {
        "round_id": "r-17", "ruleset": RULESET_ID, "evaluated": True,
        "dealer": {"foul": False, "house_way": True, "ace_high_pai_gow": False,
                   "qualifies": None, "net": 0},
        "seats": [{
            "seat": 1, "foul": False,
            "wagers": {
                # pair of tens beats pair of 8s, A-Q beats K-9: win 1:1, no commission
                "main": win(2500),
                # the dealer has no Ace High Pai Gow: the Ace High Bonus loses
                "ace_high": loss(500),
                # T T 7 6 5 A Q is one pair: less than a straight, Fortune loses
                "fortune": loss(500),
                # less than a full house: the Progressive loses its amount
                "progressive": loss(100),
            },
            "envy": 0,
        }],
    }
    assert json.dumps(result) == json.dumps(expected)


def test_face_up_is_registered_with_its_ruleset_and_the_names_it_reads() -> None:
    assert find_game(GAME) is RULES
    assert set(RULESET.options) == RULES.option_names == {"qualifying_wager_cents"}
    assert set(RULESET.paytables) == RULES.paytable_names
    assert RULESET.commission.rate_bps == 0  # docs/rules.md 6: no commission on Face Up


# ---------------------------------------------------------------------------------------
# The Face Up wager: § 688a.7(f)
# ---------------------------------------------------------------------------------------


def main_result(dealer: tuple[str, str], high: str, low: str, amount: int = 2500
                ) -> dict[str, Any]:
    result = judge(doc(dealer, seat(1, high=high, low=low, main=amount)))
    return wager(result, 1, "main")


def test_688a_7_f_1_i_both_hands_lower_loses() -> None:
    # pair of 7s (A-J-6) below pair of 8s; Q-J below K-9
    assert main_result(DEALER_EIGHTS, "7c 7d As Jh 6d", "Qd Jc") == loss(2500)


def test_688a_7_f_1_ii_a_copy_and_the_other_hand_lower_or_identical_loses() -> None:
    # high: pair of 8s with 4-3-2, a copy of the dealer's; low K-7 below K-9
    assert main_result(DEALER_EIGHTS, "8h 8s 4d 3h 2c", "Kc 7h") == loss(2500)
    # both hands copies (K-9 and K-9): copies go to the dealer
    assert main_result(DEALER_EIGHTS, "8h 8s 4d 3h 2c", "Kc 9c") == loss(2500)
    # low K-9 a copy, high pair of 7s lower
    assert main_result(DEALER_EIGHTS, "7c 7d As Jh 6d", "Kd 9d") == loss(2500)


def test_688a_7_f_1_iii_a_fouled_hand_loses() -> None:
    # 9-high behind a pair of aces: the high hand ranks below the low hand
    result = judge(doc(DEALER_EIGHTS, seat(1, high="9c 7d 5h 4s 2c", low="Ah Ad", main=2500)))
    assert result["seats"][0]["foul"] is True
    assert wager(result, 1, "main") == loss(2500)


def test_688a_7_f_1_iii_a_fouled_hand_loses_even_against_a_dealer_ace_high_pai_gow() -> None:
    """docs/rules.md 6: the dealer's Ace High Pai Gow ties every Face Up wager, but a fouled
    player hand still loses."""
    result = judge(doc(DEALER_ACE_HIGH, seat(1, high="9h 7d 5h 4s 2s", low="Ah Ad", main=2500)))
    assert result["dealer"]["ace_high_pai_gow"] is True
    assert wager(result, 1, "main") == loss(2500)


def test_688a_1_high_hand_equal_in_rank_to_the_low_hand_is_not_a_foul() -> None:
    """§ 688a.1: the high hand ranks "equal to or higher than" the low hand; a pair of 5s
    behind a pair of 5s is equal, not a foul (6a.5)."""
    # pair of 5s (K-9-7) below the dealer's pair of 8s, pair of 5s above K-9: a push
    result = judge(doc(DEALER_EIGHTS, seat(1, high="5c 5d Ks 9h 7c", low="5h 5s", main=2500)))
    assert result["seats"][0]["foul"] is False
    assert wager(result, 1, "main") == PUSH


def test_hand_set_with_a_card_not_dealt_is_refused_as_bad_input() -> None:
    """A hand set with a card the seat was not dealt cannot be judged: the record is
    inconsistent, and the document is refused naming the seat (a bad round document gets a
    clear error). A hand set 4 + 3 from the cards dealt is judged:
    tests/test_rules_corrections.py."""
    bad = seat(1, cards="Tc Td 7s 6h 5c Ah Qc", high="Tc Td 7s 6h 5c", low="Ah Qd", main=2500)
    with pytest.raises(DocumentError, match=r"seat 1: .*set but not dealt 'Qd'.*not set 'Qc'"):
        judge(doc(DEALER_EIGHTS, bad))


def test_688a_7_f_2_i_high_hand_higher_and_low_hand_identical_or_lower_ties() -> None:
    # pair of tens beats pair of 8s; K-9 identical to K-9
    assert main_result(DEALER_EIGHTS, "Tc Td 7s 6h 5c", "Kc 9c") == PUSH
    # pair of tens beats pair of 8s; Q-J below K-9
    assert main_result(DEALER_EIGHTS, "Tc Td 7s 6h 5c", "Qh Jd") == PUSH


def test_688a_7_f_2_ii_high_hand_identical_or_lower_and_low_hand_higher_ties() -> None:
    # pair of 7s below pair of 8s; A-Q above K-9
    assert main_result(DEALER_EIGHTS, "7c 7d As Jh 6d", "Ah Qc") == PUSH
    # pair of 8s 4-3-2 identical; A-K above K-9
    assert main_result(DEALER_EIGHTS, "8h 8s 4d 3h 2c", "Ad Kd") == PUSH


def test_688a_7_f_2_iii_dealer_ace_high_pai_gow_ties_every_face_up_wager() -> None:
    result = judge(doc(
        DEALER_ACE_HIGH,
        # would win both: pair of tens over ace high, A-Q over K-9
        seat(1, high="Tc Td 7s 6h 5c", low="Ah Qc", main=2500),
        # would lose both: K-high below A-high, Q-J below K-9
        seat(2, high="Kh Jd 8c 6d 4s", low="Qd Jc", main=1000),
    ))
    assert result["dealer"] == {"foul": False, "house_way": True, "ace_high_pai_gow": True,
                                "qualifies": None, "net": 0}
    assert wager(result, 1, "main") == PUSH
    assert wager(result, 2, "main") == PUSH


def test_688a_7_f_3_both_hands_higher_wins_1_to_1_with_no_commission() -> None:
    # pair of tens over pair of 8s, A-Q over K-9: 2500 at 1:1, commission 0 (docs/rules.md 6)
    assert main_result(DEALER_EIGHTS, "Tc Td 7s 6h 5c", "Ah Qc") == win(2500)
    assert main_result(DEALER_EIGHTS, "Tc Td 7s 6h 5c", "Ah Qc", amount=2510) == win(2510)


def test_6a_19_a_commission_range_the_ruleset_states_is_carried_to_the_result() -> None:
    data = json.loads((Path(__file__).resolve().parent.parent / "replay" / "rulesets"
                       / f"{RULESET_ID}.json").read_text(encoding="utf-8"))
    data |= {"id": "face_up_pai_gow-ranged-v1", "commission": {
        "rate_bps": 500, "rounding": "up_to_unit", "unit_cents": 25,
        "lawful": {"lowest": {"rounding": "down"}}}}
    ranged = ruleset_from_dict(data)
    result = judge_document(doc(DEALER_EIGHTS, seat(1, high="Tc Td 7s 6h 5c", low="Ah Qc",
                                                    main=2510)), ranged)
    # 5% of 2510 = 125.5: collected up to 25s = 150, lawful from 125 (down to the cent)
    assert wager(result, 1, "main") == {"outcome": "win", "net": 2360, "commission": 150,
                                        "net_range": [2360, 2385],
                                        "commission_range": [125, 150]}


def test_6a_7_a_fouled_dealer_hand_is_reported_and_compared_as_set() -> None:
    # the dealer's pair of 8s set in front of K-9-4-3-2: a foul, and not the house way
    result = judge(doc(("Kh 9s 4c 3d 2h", "8c 8d"),
                       seat(1, high="Tc Td 7s 6h 5c", low="7c 7d", main=2500)))
    assert result["dealer"]["foul"] is True and result["dealer"]["house_way"] is False
    # as set: pair of tens beats K-high, pair of 7s below pair of 8s: a push
    assert wager(result, 1, "main") == PUSH


def test_dealer_hand_not_set_by_the_house_way_is_reported() -> None:
    """docs/rules.md 1.3 "One pair": the pair behind, the next two highest in front; the
    dealer put 9-4 in front instead of K-9 (not a foul)."""
    result = judge(doc(("8c 8d Kh 3d 2h", "9s 4c"),
                       seat(1, high="Tc Td 7s 6h 5c", low="Ah Qc", main=2500)))
    assert result["dealer"]["house_way"] is False
    assert result["dealer"]["foul"] is False
    # compared as set: pair of tens beats pair of 8s, A-Q beats 9-4: the player wins
    assert wager(result, 1, "main") == win(2500)


# ---------------------------------------------------------------------------------------
# Ace High Bonus: § 688a.7(h)(1), docs/rules.md 6a.9
# ---------------------------------------------------------------------------------------

# A K Q J 8 6 4 3 ... seat 1's seven cards: A Q J 8 6 4 3, no pair, no straight (5 missing
# between 4 and 6, 2 and 7 missing), no flush (two hearts, two diamonds): Ace High Pai Gow.
AHPG_SEAT = ("Ah 8s 6h 4d 3c", "Qd Jc")
# seat 2: a pair of tens, not Ace High Pai Gow
PAIR_SEAT = ("Tc Td 7s 6d 5c", "Ks Qc")


def ace_high_round(dealer: tuple[str, str]) -> dict[str, Any]:
    return judge(doc(dealer, seat(1, high=AHPG_SEAT[0], low=AHPG_SEAT[1], main=1000, ace_high=500),
                     seat(2, high=PAIR_SEAT[0], low=PAIR_SEAT[1], main=1000, ace_high=500)))


def test_688a_7_h_1_i_a_dealer_without_ace_high_pai_gow_collects_the_ace_high_bonus() -> None:
    result = ace_high_round(DEALER_EIGHTS)
    assert wager(result, 1, "ace_high") == loss(500)
    assert wager(result, 2, "ace_high") == loss(500)


def test_688a_7_h_1_i_b_dealer_ace_high_pai_gow_without_the_joker_pays() -> None:
    result = ace_high_round(DEALER_ACE_HIGH)
    assert wager(result, 1, "ace_high") == win(20_000)  # both Ace High Pai Gow: 500 x 40
    assert wager(result, 2, "ace_high") == win(2_500)  # dealer without the joker: 500 x 5


def test_6a_9_dealer_ace_high_pai_gow_with_the_joker_pays_15_and_both_still_pays_40() -> None:
    result = ace_high_round(DEALER_ACE_HIGH_JOKER)
    assert result["dealer"]["ace_high_pai_gow"] is True
    assert wager(result, 1, "ace_high") == win(20_000)  # "both" is checked first: 500 x 40
    assert wager(result, 2, "ace_high") == win(7_500)  # dealer with the joker: 500 x 15


def test_6a_8_a_joker_pairing_the_dealers_ace_is_no_ace_high_pai_gow() -> None:
    # Jk As: a pair of aces; the dealer sets it behind (one pair), K-9 in front
    result = judge(doc(("Jk As 7h 5s 3d", "Kd 9c"),
                       seat(1, high=PAIR_SEAT[0], low=PAIR_SEAT[1], ace_high=500)))
    assert result["dealer"]["ace_high_pai_gow"] is False
    assert wager(result, 1, "ace_high") == loss(500)


# ---------------------------------------------------------------------------------------
# Fortune Bonus: § 688a.7(h)(2)(i), docs/rules.md 6a.10, 6a.12
# ---------------------------------------------------------------------------------------


def dealer_apart_from(cards: str) -> tuple[str, str]:
    """Seven cards the seat does not hold, for a dealer whose hand does not matter to the
    optional wagers being tested."""
    held = set(cards.split())
    free = [str(c) for c in DECK_52 if str(c) not in held][::6][:7]
    return " ".join(free[:5]), " ".join(free[5:])


@pytest.mark.parametrize(("cards", "expected"), [
    # two pair: less than a straight, the wager is collected
    ("Qs Qh Jd Js 6c 5h 3s", loss(500)),
    ("5c 6d 7h 8s 9d Ks 2d", win(1_000)),  # straight: 500 x 2
    # A A Jk 2 3 4 9: three aces, and A-2-3-4-joker a straight: trips pay (2.4 quirk): 500 x 3
    ("Ah Ad Jk 2s 3h 4s 9h", win(1_500)),
    ("Ac Kc Tc 7c 3c Td 6s", win(2_000)),  # flush: 500 x 4
    ("Qc Qd Qh 6c 6d 5s 3h", win(2_500)),  # full house: 500 x 5
    ("7c 7d 7h 7s Ks Qh 2c", win(12_500)),  # four of a kind: 500 x 25
    ("9s Ts Js Qs Ks 2d 3d", win(25_000)),  # straight flush: 500 x 50
    ("Ah Kh Qh Jh Jk 2s 3s", win(75_000)),  # royal flush, the joker the ten: 500 x 150
    ("Ac Ad Ah As Jk 6c 5d", win(200_000)),  # five aces: 500 x 400
    ("Jh Th 9h 8h 7h 6h Jk", win(500_000)),  # 7-card straight flush with joker: x1,000
    ("Ac Kc Qc Jc Tc Kh Qh", win(1_000_000)),  # royal plus royal match: 500 x 2,000
    ("Ts 9s 8s 7s 6s 5s 4s", win(4_000_000)),  # natural 7-card straight flush: 500 x 8,000
])
def test_688a_7_h_2_i_fortune_pays_wager_times_the_posted_odds(cards: str,
                                                               expected: dict[str, Any]) -> None:
    result = judge(doc(dealer_apart_from(cards), seat(1, cards, fortune=500)))
    assert wager(result, 1, "fortune") == expected


def test_6a_6_a_fouled_hand_settles_its_side_wagers_on_the_seven_cards() -> None:
    """§ 688a.7(h): the dealer rearranges the seven cards to form the highest ranking hand. The
    player set K-high behind a pair of aces (a foul) and holds five clubs: the main wager
    loses, the Fortune wager is paid on the flush (500 x 4)."""
    result = judge(doc(DEALER_EIGHTS,
                       seat(1, high="Kc Tc 7c 6h 5c", low="Ac Ad", main=2500, fortune=500)))
    assert result["seats"][0]["foul"] is True
    assert wager(result, 1, "main") == loss(2500)
    assert wager(result, 1, "fortune") == win(2_000)


# ---------------------------------------------------------------------------------------
# Envy Bonus: § 688a.7(h)(2)(ii), § 688a.1, docs/rules.md 6a.11
# ---------------------------------------------------------------------------------------


def envy_round() -> dict[str, Any]:
    """The dealer holds four kings (no Envy for anyone); seat 1 four nines ($5 Envy hand);
    seat 5 a royal flush ($50 Envy hand) with only a $1 Fortune."""
    return judge(doc(
        ("Kc Kd Kh Ks 2c", "3c 4c"),
        seat(1, "9c 9d 9h 9s 2d 3d 4d", fortune=500),  # quads, qualifying
        seat(2, "Qc Jd 8h 7s 5d 3h 2h", fortune=500),  # qualifying at exactly $5
        seat(3, "Qd Jc 8c 7d 5c 3s 2s", fortune=499),  # 1 cent short of $5
        seat(4, "Qh Jh 8d 7c 6c 4h 4s", progressive=500),  # qualifying by the Progressive
        seat(5, "As Qs Js Ts Jk 6d 6h", fortune=100),  # royal flush, not qualifying
        meter=2_500_000,
    ))


def test_688a_7_h_2_ii_envy_pays_each_qualifying_wager_for_every_other_players_hand() -> None:
    # the Envy hands: seat 1 four of a kind ($5 = 500), seat 5 royal flush ($50 = 5,000)
    assert envy(envy_round()) == {
        1: 5_000,  # seat 5's royal only: never for its own four nines
        2: 500 + 5_000,  # both
        3: 0,  # Fortune 499: no Qualifying Wager
        4: 500 + 5_000,  # Progressive 500 is a Qualifying Wager (§ 688a.1)
        5: 0,  # Fortune 100: no Qualifying Wager, though its hand pays the others
    }


def test_688a_7_h_2_ii_the_dealers_hand_earns_no_envy() -> None:
    # the dealer's four kings are an Envy hand in rank, but "not ... the hand of the dealer"
    result = judge(doc(("Kc Kd Kh Ks 2c", "3c 4c"),
                       seat(2, "Qc Jd 8h 7s 5d 3h 2h", fortune=500)))
    assert envy(result) == {2: 0}


def test_688a_7_h_2_ii_ones_own_hand_earns_no_envy() -> None:
    result = judge(doc(DEALER_EIGHTS, seat(1, "Tc Td Th Ts 2d 3s 4d", fortune=500)))
    assert envy(result) == {1: 0}
    assert wager(result, 1, "fortune") == win(12_500)  # four of a kind: 500 x 25


def test_6a_11_envy_is_paid_whatever_the_qualifying_hands_own_wagers() -> None:
    # seat 1 holds five aces ($250 Envy hand) and wagered nothing at all
    result = judge(doc(DEALER_EIGHTS, seat(1, "Ac Ad Ah As Jk 6c 5d"),
                       seat(2, "Qc Jd 8h 7s 5h 3h 2s", fortune=500)))
    assert envy(result) == {1: 0, 2: 25_000}
    assert result["seats"][0]["wagers"] == {}  # 6a.18: nothing wagered, nothing reported


def test_688a_1_envy_bonus_qualifying_hand_is_four_of_a_kind_or_better_not_a_full_house() -> None:
    result = judge(doc(DEALER_EIGHTS, seat(1, "9c 9d 9h Ks Kd 3s 4d"),
                       seat(2, "Qc Jd 8h 7s 5h 3h 2s", fortune=500)))
    assert envy(result) == {1: 0, 2: 0}


def test_6a_11_the_qualifying_wager_threshold_is_a_ruleset_option() -> None:
    data = _ruleset_data()
    data["options"]["qualifying_wager_cents"] = 1000
    data["paytables"]["envy"]["four_of_a_kind"] = {"fixed_cents": 700}
    custom = ruleset_from_dict(data)
    document = doc(DEALER_EIGHTS, seat(1, "Tc Td Th Ts 2d 3s 4d"),
                   seat(2, "Qc Jd 8h 7s 5h 3h 2s", fortune=500),
                   seat(3, "Qd Jc 7d 6s 5c 3c Ac", fortune=1000))
    result = judge_document(document, custom)
    # $5 no longer qualifies; $10 does and receives the posted $7
    assert envy(result) == {1: 0, 2: 0, 3: 700}


# ---------------------------------------------------------------------------------------
# Progressive Payout Wager: § 688a.7(h)(3), docs/rules.md 6a.12, 6a.13
# ---------------------------------------------------------------------------------------


def test_688a_7_h_3_i_a_below_a_full_house_the_progressive_is_collected() -> None:
    result = judge(doc(DEALER_EIGHTS, seat(1, "Ac Kc Tc 7c 3c Td 6s", progressive=100),
                       meter=2_500_000))
    assert wager(result, 1, "progressive") == loss(100)  # a flush is not enough


def test_688a_7_h_3_i_b_fixed_awards_are_posted_sums_not_scaled_and_not_collected() -> None:
    result = judge(doc(
        DEALER_ACE_HIGH,
        seat(1, "Qc Qd Qh 6c 6d 4s 3h", progressive=100),  # full house: $5
        seat(2, "Jc Jd Jh 8c 8d 4h 2s", progressive=500),  # full house, five times the wager
        seat(3, "Tc Td Th Ts 9d 9h 2h", progressive=100),  # four of a kind: $75
        meter=2_500_000,
    ))
    assert wager(result, 1, "progressive") == win(500)
    assert wager(result, 2, "progressive") == win(500)  # not scaled by the wager
    assert wager(result, 3, "progressive") == win(7_500)
    # 6a.11: seat 2's $5 Progressive qualifies it for seat 3's four tens ($5)
    assert envy(result) == {1: 0, 2: 500, 3: 0}


def test_6a_13_percentage_award_is_the_meter_share_rounded_down_to_the_cent() -> None:
    # royal flush plus royal match: 10% of 2,500,005 = 250,000.5, rounded down to 250,000;
    # rounded up, 250,001, is lawful too (6a.19)
    result = judge(doc(DEALER_EIGHTS, seat(1, "As Ks Qs Js Ts Kd Qd", progressive=100),
                       meter=2_500_005))
    assert wager(result, 1, "progressive") == meter_win(250_000, 250_001)


def test_6a_13_two_seats_winning_the_same_percentage_award_share_it_odd_cent_dropped() -> None:
    result = judge(doc(
        ("Kc 7c 6c 3d 2h", "Qc Jc"),
        seat(1, "2s 3s 4s 5s 6s 7s 8s", progressive=100),  # natural 7-card straight flush
        seat(2, "2d 4d 5d 6d 7d 8d 3c", progressive=100),  # a 6-card straight flush: $100
        seat(3, "9h Th Jh Qh Kh Ah 8h", progressive=100),  # natural 7-card straight flush
        seat(4, "As Ks Qs Js Ts Kd Qd", progressive=100),  # royal plus royal match: 10%
        meter=2_500_001,
    ))
    # 100% of 2,500,001 shared by seats 1 and 3: 1,250,000.5 each, rounded down (the odd
    # cent to either is lawful: up to 1,250,001, 6a.19)
    assert wager(result, 1, "progressive") == meter_win(1_250_000, 1_250_001)
    assert wager(result, 3, "progressive") == meter_win(1_250_000, 1_250_001)
    # 10% of 2,500,001 = 250,000.1 -> 250,000 (up to 250,001), not shared (another award)
    assert wager(result, 4, "progressive") == meter_win(250_000, 250_001)
    assert wager(result, 2, "progressive") == win(10_000)  # straight flush: $100


def test_6a_13_two_royal_matches_share_the_ten_percent_award() -> None:
    result = judge(doc(
        ("9c 8h 6c 4d 3s", "7h 2d"),
        seat(1, "As Ks Qs Js Ts Kh Qh", progressive=100),  # royal plus royal match
        seat(2, "Ad Kd Qd Jd Td Kc Qc", progressive=100),  # royal plus royal match
        seat(3, "9d 8d 7d 6d Jk 5c 5h", progressive=100),  # straight flush with the joker
        meter=2_500_010,
    ))
    # 10% of 2,500,010 = 250,001, shared by seats 1 and 2: 125,000.5 each, rounded down
    # (the odd cent to either is lawful: up to 125,001, 6a.19)
    assert wager(result, 1, "progressive") == meter_win(125_000, 125_001)
    assert wager(result, 2, "progressive") == meter_win(125_000, 125_001)
    assert wager(result, 3, "progressive") == win(10_000)  # a fixed $100, not shared


def test_progressive_meter_is_required_when_a_progressive_wager_is_present() -> None:
    with pytest.raises(DocumentError, match="progressive_meter"):
        judge(doc(DEALER_EIGHTS, seat(1, "Ac Kc Tc 7c 3c Td 6s", progressive=100)))


# ---------------------------------------------------------------------------------------
# 6a.18 and bad input
# ---------------------------------------------------------------------------------------


def test_6a_18_wagers_of_zero_or_absent_are_left_out() -> None:
    result = judge(doc(DEALER_EIGHTS, seat(1, high="Tc Td 7s 6h 5c", low="Ah Qc", main=2500,
                                           ace_high=0, fortune=0)))
    assert list(result["seats"][0]["wagers"]) == ["main"]


def test_a_seat_that_set_no_hand_and_made_no_face_up_wager_has_no_foul() -> None:
    result = judge(doc(DEALER_EIGHTS, seat(1, "Qc Jd 8h 7s 5h 3h 2s", fortune=500)))
    assert result["seats"][0]["foul"] is None


def test_6a_18_face_up_is_dealer_banked_only() -> None:
    document = doc(DEALER_EIGHTS, seat(1, high="Tc Td 7s 6h 5c", low="Ah Qc", main=2500))
    document["banker"] = {"seat": 1, "co_bank": False}
    with pytest.raises(DocumentError, match="dealer-banked only"):
        judge(document)
    document["banker"] = "dealer"
    assert judge(document)["seats"][0]["wagers"]["main"] == win(2500)


@pytest.mark.parametrize(("change", "named"), [
    (lambda d: d["seats"][0]["cards"].__setitem__(2, "Xx"), r"seat 1\.cards\[2\].*'Xx'"),
    (lambda d: d["seats"][0].__setitem__("cards", d["seats"][0]["cards"][:6]),
     r"seat 1\.cards must hold 7 cards, got 6"),
    (lambda d: d["seats"][0]["wagers"].__setitem__("ante", 500), r"unknown wagers \['ante'\]"),
    (lambda d: d["seats"][0]["wagers"].__setitem__("main", 25.0), r"seat 1\.wagers\.main.*25\.0"),
    (lambda d: d["seats"][0].__setitem__("action", "fold"), r"seat 1\.action.*'fold'"),
    (lambda d: d["seats"][0].__setitem__("tiles", []), r"seat 1 has unknown fields \['tiles'\]"),
    (lambda d: d["dealer"].pop("low"), r"dealer has no 'low'"),
    (lambda d: d["dealer"].__setitem__("wager", 2500), r"dealer\.wager 2500 refused"),
    (lambda d: d["seats"].append(dict(d["seats"][0])), r"seats \[1\] appear more than once"),
    (lambda d: d.__setitem__("progressive_meter", -1), r"progressive_meter.*-1"),
    (lambda d: d.__setitem__("seats", {}), r"seats must be a list"),
])
def test_bad_input_is_refused_naming_what_and_where(change: Any, named: str) -> None:
    document = doc(DEALER_EIGHTS, seat(1, high="Tc Td 7s 6h 5c", low="Ah Qc", main=2500))
    change(document)
    with pytest.raises(DocumentError, match=named):
        judge(document)


def test_a_card_dealt_twice_in_the_round_is_named_with_both_places() -> None:
    document = doc(DEALER_EIGHTS, seat(2, high="Tc Td 7s 6h 5c", low="Ah Qc", main=2500),
                   seat(4, high="Kc Ks 7c 6d 5d", low="Ah Qs", main=2500))
    with pytest.raises(DocumentError, match="card Ah dealt to seat 2 and seat 4"):
        judge(document)
    document = doc(DEALER_EIGHTS, seat(2, high="8c Td 7s 6h 5c", low="Ah Qc", main=2500))
    with pytest.raises(DocumentError, match="card 8c dealt to dealer and seat 2"):
        judge(document)


def test_an_unknown_ruleset_is_named() -> None:
    document = doc(DEALER_EIGHTS, seat(1, high="Tc Td 7s 6h 5c", low="Ah Qc", main=2500))
    document["ruleset"] = "face_up_pai_gow-nope"
    with pytest.raises(UnknownRulesetError, match="'face_up_pai_gow-nope'"):
        adjudicate(document)
    del document["ruleset"]
    assert adjudicate(document)["ruleset"] == RULESET_ID  # the game's default


def test_a_ruleset_without_a_needed_paytable_is_named() -> None:
    data = _ruleset_data()
    del data["paytables"]["ace_high"]
    custom = ruleset_from_dict(data)
    document = doc(DEALER_ACE_HIGH, seat(1, high=PAIR_SEAT[0], low=PAIR_SEAT[1], ace_high=500))
    with pytest.raises(RulesetError, match="no paytable 'ace_high'"):
        judge_document(document, custom)


def test_cli_judges_the_good_rounds_and_names_the_bad_one(tmp_path: Path) -> None:
    good = doc(DEALER_EIGHTS, seat(1, high="Tc Td 7s 6h 5c", low="Ah Qc", main=2500),
               round_id="r-good")
    bad = doc(DEALER_EIGHTS, seat(1, high="Tc Td 7s 6h 5c", low="Ah Qc", main=2500),
              round_id="r-bad")
    bad["banker"] = {"seat": 1, "co_bank": True}
    path = tmp_path / "rounds.jsonl"
    path.write_text(json.dumps(good) + "\n" + json.dumps(bad) + "\n" + json.dumps(good) + "\n",
                    encoding="utf-8")
    done = run_cli("replay", "adjudicate", str(path))
    assert done.returncode == 2
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    assert [r["round_id"] for r in lines] == ["r-good", "r-good"]
    assert lines[0]["seats"][0]["wagers"]["main"] == win(2500)
    assert "r-bad" in done.stderr and "dealer-banked only" in done.stderr


# ---------------------------------------------------------------------------------------
# The pure settlement of Fortune, Progressive and Envy (for the classic game too)
# ---------------------------------------------------------------------------------------


def test_settle_bonus_wagers_settles_fortune_progressive_and_envy_for_any_seats() -> None:
    hands = [
        BonusHand(seat=1, cards=parse_cards("9c 9d 9h 9s 2d 3d 4d"), fortune_cents=500),
        BonusHand(seat=3, cards=parse_cards("Qc Qd Qh 6c 6d 4s 3h"), fortune_cents=1000,
                  progressive_cents=100),
        BonusHand(seat=6, cards=parse_cards("Qs Jd 8h 7s 5d 3s 2h")),
    ]
    first, third, sixth = settle_bonus_wagers(hands, ruleset=RULESET, meter_cents=1_000_000)
    assert first.seven_card_class is SevenCardClass.FOUR_OF_A_KIND
    assert first.fortune is not None and first.fortune.outcome is Outcome.WIN
    assert first.fortune.net_cents == 12_500  # 500 x 25
    assert first.progressive is None and first.envy_cents == 0  # not for its own hand
    assert third.fortune is not None and third.fortune.net_cents == 5_000  # 1000 x 5
    assert third.progressive is not None and third.progressive.net_cents == 500  # $5
    assert third.envy_cents == 500  # seat 1's four nines: $5
    assert sixth.seven_card_class is None and sixth.fortune is None and sixth.envy_cents == 0


def test_settle_bonus_wagers_refuses_a_missing_meter_and_classes_a_card_in_two_hands_as_dealt(
) -> None:
    hand = BonusHand(seat=1, cards=parse_cards("9c 9d 9h 9s 2d 3d 4d"), progressive_cents=100)
    with pytest.raises(RoundError, match="progressive_meter"):
        settle_bonus_wagers([hand], ruleset=RULESET)
    # 9c and 9h in both hands: each hand is classed as dealt (docs/rules.md 8.1)
    twin = BonusHand(seat=2, cards=parse_cards("9c Kd Kh 9h 2h 3h 4h"))
    first, second = settle_bonus_wagers([hand, twin], ruleset=RULESET, meter_cents=0)
    assert first.seven_card_class is SevenCardClass.FOUR_OF_A_KIND
    assert second.seven_card_class is SevenCardClass.FLUSH  # Kh 9h 4h 3h 2h


def _ruleset_data() -> dict[str, Any]:
    path = Path(__file__).resolve().parent.parent / "replay" / "rulesets" / f"{RULESET_ID}.json"
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    data["id"] = "face_up_pai_gow-test-v1"
    return data


# ---------------------------------------------------------------------------------------
# Properties (Hypothesis): random rounds against the classic module's own functions
# ---------------------------------------------------------------------------------------

WAGER_CHOICES = st.fixed_dictionaries({
    "main": st.sampled_from([0, 500, 2500]),
    "ace_high": st.sampled_from([0, 100, 500]),
    "fortune": st.sampled_from([0, 100, 499, 500, 2500]),
    "progressive": st.sampled_from([0, 100, 500]),
})


@st.composite
def rounds(draw: st.DrawFn) -> tuple[dict[str, Any], list[tuple[tuple[Card, ...], ...]]]:
    """A dealt round: the dealer set by the house way, each seat set any of its 21 ways."""
    deck = draw(st.permutations(DECK_53))
    n = draw(st.integers(min_value=1, max_value=6))
    numbers = draw(st.lists(st.integers(min_value=1, max_value=9), min_size=n, max_size=n,
                            unique=True))
    dealer_cards = tuple(deck[:7])
    high, low = house_way(dealer_cards)
    seats, hands = [], []
    for k, number in enumerate(numbers):
        cards = tuple(deck[7 * (k + 1): 7 * (k + 2)])
        s_high, s_low = list(splits(cards))[draw(st.integers(min_value=0, max_value=20))]
        seats.append({"seat": number, "cards": [str(c) for c in cards],
                      "high": [str(c) for c in s_high], "low": [str(c) for c in s_low],
                      "wagers": draw(WAGER_CHOICES)})
        hands.append((cards, s_high, s_low))
    document = {"round_id": "r-h", "game": GAME, "progressive_meter": 1_000_001,
                "dealer": {"cards": [str(c) for c in dealer_cards],
                           "high": [str(c) for c in high], "low": [str(c) for c in low]},
                "seats": seats}
    return document, [(dealer_cards, high, low), *hands]


@settings(max_examples=150, deadline=None)
@given(rounds())
def test_688a_7_f_main_outcome_follows_foul_ace_high_pai_gow_then_compare(
    drawn: tuple[dict[str, Any], list[tuple[tuple[Card, ...], ...]]]
) -> None:
    """(f)(1)(iii) a foul loses; (f)(2)(iii) a dealer Ace High Pai Gow ties; otherwise the
    classic module's compare() decides ((f)(1)(i)-(ii), (2)(i)-(ii), (3)). The dealer's hand
    set by the house way is reported as following it and never fouls."""
    document, hands = drawn
    result = judge(document)
    (d_cards, d_high, d_low), *seat_hands = hands
    dealer_ace_high = is_ace_high_pai_gow(d_cards)
    assert result["dealer"] == {"foul": False, "house_way": True,
                                "ace_high_pai_gow": dealer_ace_high, "qualifies": None,
                                "net": 0}
    for out, seat_doc, (_, s_high, s_low) in zip(result["seats"], document["seats"],
                                                 seat_hands, strict=True):
        assert out["seat"] == seat_doc["seat"]
        assert out["foul"] is is_foul(s_high, s_low)
        amount = seat_doc["wagers"]["main"]
        if not amount:
            assert "main" not in out["wagers"]
            continue
        if out["foul"]:
            expected = Outcome.LOSS
        elif dealer_ace_high:
            expected = Outcome.PUSH
        else:
            expected = compare(player_high=s_high, player_low=s_low, banker_high=d_high,
                               banker_low=d_low)
        net = {Outcome.WIN: amount, Outcome.LOSS: -amount, Outcome.PUSH: 0}[expected]
        assert out["wagers"]["main"] == {"outcome": expected.value, "net": net,
                                         "commission": 0}


@settings(max_examples=150, deadline=None)
@given(rounds())
def test_6a_10_to_6a_13_round_results_agree_with_settle_bonus_wagers_and_seat_order(
    drawn: tuple[dict[str, Any], list[tuple[tuple[Card, ...], ...]]]
) -> None:
    """The document's Fortune, Progressive and Envy are settle_bonus_wagers' on the seats'
    seven cards; the Envy paid is the hand-built sum over other seats' hands; reversing the
    seats changes no seat's result."""
    document, hands = drawn
    result = judge(document)
    bonus = settle_bonus_wagers(
        [BonusHand(seat=s["seat"], cards=cards, fortune_cents=s["wagers"]["fortune"],
                   progressive_cents=s["wagers"]["progressive"])
         for s, (cards, _, _) in zip(document["seats"], hands[1:], strict=True)],
        ruleset=RULESET, meter_cents=document["progressive_meter"])
    envy_sums = {"natural_seven_card_straight_flush": 500_000,
                 "royal_flush_plus_royal_match": 100_000,
                 "seven_card_straight_flush_with_joker": 50_000, "five_aces": 25_000,
                 "royal_flush": 5_000, "straight_flush": 2_000, "four_of_a_kind": 500}
    hand_sums = [envy_sums.get(b.seven_card_class.value if b.seven_card_class else "", 0)
                 for b in bonus]
    for k, (out, b, seat_doc) in enumerate(zip(result["seats"], bonus, document["seats"],
                                               strict=True)):
        for name, settled in (("fortune", b.fortune), ("progressive", b.progressive)):
            if settled is None:
                assert name not in out["wagers"]
            else:
                assert out["wagers"][name] == {"outcome": settled.outcome.value,
                                               "net": settled.net_cents, "commission": 0}
        assert out["envy"] == b.envy_cents
        w = seat_doc["wagers"]
        qualifies = w["fortune"] >= 500 or w["progressive"] >= 500
        assert out["envy"] == (sum(hand_sums) - hand_sums[k] if qualifies else 0)
    reversed_doc = dict(document, seats=document["seats"][::-1])
    assert judge(reversed_doc)["seats"] == result["seats"][::-1]
