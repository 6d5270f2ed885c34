"""Fortune, Progressive and Envy on classic pai gow poker rounds (docs/rules.md 6a.18: "Classic
pai gow poker may carry Fortune and Progressive wagers, settled as in Face Up"; 6a.6,
6a.10-6a.14; 58 Pa. Code § 688a.1, § 688a.7(h)).

The paytables are those docs/rules.md 6 posts for Face Up, which the classic ruleset ships too:
Fortune (to 1) natural seven-card straight flush 8,000, royal flush plus royal match 2,000,
seven-card straight flush with the joker 1,000, five aces 400, royal flush 150, straight
flush 50, four of a kind 25, full house 5, flush 4, three of a kind 3, straight 2; Envy $5,000
/ $1,000 / $500 / $250 / $50 / $20 / $5 down to four of a kind; Progressive 100% and 10% of
the meter, then $2,500 / $1,000 / $250 / $100 / $75 / $5 down to a full house; a Qualifying
Wager is a Fortune or Progressive wager of at least $5. Every expected amount below is worked
out by hand from those numbers in the comments.

In player-banked rounds the side wagers and the Envy Bonus are between each seat and the
house (6a.14: the banker seat's side wagers "settle as for any seat"): they never enter the
player banker's account, and the house's result carries them.
"""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st

from replay.cards import DECK_53, parse_cards
from replay.document import DocumentError
from replay.errors import RulesetError
from replay.games import face_up_pai_gow
from replay.games.pai_gow_poker import (
    ENVY,
    FORTUNE,
    GAME,
    OPTION_QUALIFYING_WAGER_CENTS,
    PROGRESSIVE,
    RULES,
    house_way,
    judge_document,
)
from replay.rulesets import load_ruleset, ruleset_from_dict
from tests.conftest import REPO
from tests.test_seven_card_classes import simple_seven

CLASSIC = load_ruleset("pai_gow_poker-classic-v1")
FACE_UP = load_ruleset("face_up_pai_gow-pa688a-v1")
METER = 2_500_000


def holding(text: str) -> dict[str, list[str]]:
    """``"Kh Th 8h 5h 2h / Ad Qc"`` as a document holding: dealt cards, high and low."""
    high_text, low_text = text.split("/")
    high = [str(card) for card in parse_cards(high_text)]
    low = [str(card) for card in parse_cards(low_text)]
    return {"cards": high + low, "high": high, "low": low}


def seat(number: int, text: str, **wagers: int) -> dict[str, Any]:
    return {"seat": number, **holding(text), "wagers": wagers}


def round_doc(dealer: str, *seats: dict[str, Any], meter: int | None = METER,
              banker: dict[str, Any] | None = None, dealer_wager: int | None = None
              ) -> dict[str, Any]:
    doc: dict[str, Any] = {"round_id": "r-bonus", "game": GAME}
    if banker is not None:
        doc["banker"] = banker
    if meter is not None:
        doc["progressive_meter"] = meter
    doc["dealer"] = holding(dealer)
    if dealer_wager is not None:
        doc["dealer"]["wager"] = dealer_wager
    doc["seats"] = list(seats)
    return doc


def judge(doc: dict[str, Any]) -> dict[str, Any]:
    return judge_document(doc, CLASSIC)


def wagers(result: dict[str, Any], number: int) -> dict[str, Any]:
    (entry,) = [s for s in result["seats"] if s["seat"] == number]
    return entry["wagers"]


def envy(result: dict[str, Any]) -> dict[int, int]:
    return {s["seat"]: s["envy"] for s in result["seats"]}


def win(net: int, commission: int = 0) -> dict[str, Any]:
    return {"outcome": "win", "net": net, "commission": commission}


def meter_win(net: int, high: int) -> dict[str, Any]:
    """A share of the meter paid ``net`` (rounded down), lawful up to ``high`` (rounded up:
    docs/rules.md 6a.13, 6a.19); no commission either way."""
    return {**win(net), "net_range": [net, high], "commission_range": [0, 0]}


def loss(amount: int) -> dict[str, Any]:
    return {"outcome": "loss", "net": -amount, "commission": 0}


# the dealer: 9-high no pair behind, 7-3 in front (no straight: 2 3 4 6 7 8 9 lacks a 5)
LOW_DEALER = "9s 8d 6c 4h 2s / 7c 3d"


# ---------------------------------------------------------------------------------------
# Fortune and Progressive (6a.10, 6a.12, 6a.13)
# ---------------------------------------------------------------------------------------


def test_6a_18_fortune_on_a_classic_round_pays_wager_times_the_posted_odds() -> None:
    # seat 1: a heart flush K-T-8-5-2 behind, A-Q in front. Main: flush > 9-high and A-Q >
    # 7-3, a win: 1000 less 5% = 950, commission 50. Fortune: seven cards Kh Th 8h 5h 2h Ad
    # Qc are a flush (no pair, no straight), 4 to 1: 500 x 4 = 2000.
    # seat 2: kings and jacks (Ks Kd Jc Js), two pair, below a straight: Fortune loses 500.
    # Main: a pair of kings behind beats 9-high and Q-J beats 7-3: a win, 2000 less 5% =
    # 1900, commission 100.
    result = judge(round_doc(LOW_DEALER,
                             seat(1, "Kh Th 8h 5h 2h / Ad Qc", main=1000, fortune=500),
                             seat(2, "Ks Kd 5c 3c Jc / Qh Js", main=2000, fortune=500),
                             meter=None))
    assert result["seats"] == [
        {"seat": 1, "foul": False, "wagers": {"main": win(950, 50), "fortune": win(2000)},
         "envy": 0},
        {"seat": 2, "foul": False, "wagers": {"main": win(1900, 100), "fortune": loss(500)},
         "envy": 0},
    ]
    assert list(result["seats"][0]["wagers"]) == ["main", "fortune"]
    assert "banker" not in result


def test_6a_12_progressive_pays_the_posted_award_whatever_the_wager_and_is_not_collected(
) -> None:
    # seats 3 and 4 hold full houses (queens over fives; jacks over fours): the posted award
    # is a fixed $5 = 500 cents, not scaled by the wager (100 or 2500) and the wager is not
    # collected: net +500 both. Seat 3's Fortune of 500 on a full house, 5 to 1: +2500.
    result = judge(round_doc(LOW_DEALER,
                             seat(3, "Qs Qd Qc 5d 5s / Ac Kc", progressive=100, fortune=500),
                             seat(4, "Js Jd Jh 4d 4s / Ah Kh", progressive=2500)))
    assert wagers(result, 3) == {"fortune": win(2500), "progressive": win(500)}
    assert wagers(result, 4) == {"progressive": win(500)}
    assert list(wagers(result, 3)) == ["fortune", "progressive"]


def test_6a_12_a_progressive_wager_below_a_full_house_loses_its_amount() -> None:
    # seat 1's flush is below the lowest progressive line (full house): -100
    result = judge(round_doc(LOW_DEALER, seat(1, "Kh Th 8h 5h 2h / Ad Qc", progressive=100)))
    assert wagers(result, 1) == {"progressive": loss(100)}


def test_6a_13_a_percentage_award_is_rounded_down_and_shared_between_its_winners() -> None:
    # seats 1 and 2 each hold a royal flush plus royal match (seat 2's royal made with the
    # joker as the ten of diamonds, which 6a.10 allows; the match is a natural K-Q of one
    # suit). The award is 10% of the meter: 2,500,035 x 10% = 250,003.5 cents, rounded down
    # to 250,003, shared by two: 250,003 / 2 = 125,001.5, rounded down to 125,001 each. The
    # texts say neither how the 10% is rounded nor who takes the odd cent, so up to 250,004
    # shared and rounded up, 125,002, is lawful too (6a.19).
    # Their $1 wagers are not Qualifying Wagers, so no Envy is paid for the two royals.
    dealer = "9c 8c 6h 4d 2d / 7h 3h"
    result = judge(round_doc(dealer,
                             seat(1, "As Ks Qs Js Ts / Kh Qh", progressive=100),
                             seat(2, "Ad Kd Qd Jd Jk / Kc Qc", progressive=100),
                             meter=2_500_035))
    assert wagers(result, 1) == {"progressive": meter_win(125_001, 125_002)}
    assert wagers(result, 2) == {"progressive": meter_win(125_001, 125_002)}
    assert envy(result) == {1: 0, 2: 0}


def test_6a_13_a_lone_percentage_winner_takes_the_whole_share_of_the_meter() -> None:
    # seat 1 alone: 10% of 2,500,035 = 250,003.5, rounded down to 250,003 (lawful up to
    # 250,004). Its Fortune of 500 pays 2,000 to 1 on royal flush plus royal match: 1,000,000.
    result = judge(round_doc("9c 8c 6h 4d 2d / 7h 3h",
                             seat(1, "As Ks Qs Js Ts / Kh Qh", progressive=100, fortune=500),
                             meter=2_500_035))
    assert wagers(result, 1) == {"fortune": win(1_000_000),
                                 "progressive": meter_win(250_003, 250_004)}


def test_6a_6_a_fouled_classic_hand_loses_the_main_wager_and_settles_fortune_on_seven_cards(
) -> None:
    # T-high behind (Th 8h 5h 2h Qc) below A-K in front: a foul, the main 1000 loses. The
    # seven cards still hold the heart flush K-T-8-5-2: Fortune 500 x 4 = 2000.
    result = judge(round_doc(LOW_DEALER,
                             seat(1, "Th 8h 5h 2h Qc / Ad Kh", main=1000, fortune=500)))
    (entry,) = result["seats"]
    assert entry["foul"] is True
    assert entry["wagers"] == {"main": loss(1000), "fortune": win(2000)}


def test_6a_18_side_wagers_of_a_seat_that_set_no_hand_are_settled_on_its_dealt_cards() -> None:
    # no main wager, so the hand need not be set (a foul of null); the Fortune is settled on
    # the seven dealt cards: the heart flush, 500 x 4 = 2000
    doc = round_doc(LOW_DEALER, seat(1, "Kh Th 8h 5h 2h / Ad Qc", fortune=500))
    del doc["seats"][0]["high"], doc["seats"][0]["low"]
    result = judge(doc)
    assert result["seats"] == [{"seat": 1, "foul": None, "wagers": {"fortune": win(2000)},
                                "envy": 0}]


# ---------------------------------------------------------------------------------------
# Envy (6a.11; § 688a.1, § 688a.7(h)(2)(ii))
# ---------------------------------------------------------------------------------------

ENVY_DEALER = "7s 7h 7d 7c 2d / Kh 3d"           # four sevens: the dealer's, so no Envy
ENVY_SEATS = (
    seat(1, "9s 9h 9d 9c 4c / Ac 8c", fortune=500),      # four nines: a $5 Envy hand
    seat(2, "Qs Js 8d 6d 4s / Ad 2c", fortune=500),      # A-Q-J-8-6-4-2: nothing
    seat(3, "Jc Tc 8s 5s 3c / Ah 6c", progressive=500),  # A-J-T-8-6-5-3: nothing
    seat(4, "Kc Jd 8h 6s 2s / Qh 4d", fortune=100),      # K-Q-J-8-6-4-2: nothing
    seat(5, "6h 5h 4h 3h 2h / As Ks"),                   # 6-high straight flush: $20; no wager
)


def test_6a_11_envy_on_a_classic_round_for_every_other_players_hand_of_four_or_better(
) -> None:
    # Envy hands at the table: seat 1 four nines (500) and seat 5 a straight flush (2000);
    # the dealer's four sevens count for nobody. Qualifying Wagers ($5 or more on Fortune or
    # Progressive): seats 1, 2 (Fortune 500) and 3 (Progressive 500); seat 4's $1 Fortune is
    # not one and seat 5 wagered nothing.
    #   seat 1: seat 5's 2000 (not its own four nines)             = 2000
    #   seat 2: 500 + 2000                                         = 2500
    #   seat 3: 500 + 2000                                         = 2500
    #   seats 4 and 5: none                                        = 0
    # Seat 1's Fortune: four of a kind, 25 to 1: 500 x 25 = 12500. Seats 2-4 hold nothing
    # and lose their side wagers.
    result = judge(round_doc(ENVY_DEALER, *ENVY_SEATS))
    assert envy(result) == {1: 2000, 2: 2500, 3: 2500, 4: 0, 5: 0}
    assert wagers(result, 1) == {"fortune": win(12_500)}
    assert wagers(result, 2) == {"fortune": loss(500)}
    assert wagers(result, 3) == {"progressive": loss(500)}
    assert wagers(result, 4) == {"fortune": loss(100)}
    assert wagers(result, 5) == {}


def test_6a_11_the_qualifying_wager_threshold_is_the_classic_rulesets_option() -> None:
    # raise the threshold to $10: no seat qualifies any more, so no Envy at all
    data = json.loads((REPO / "replay/rulesets/pai_gow_poker-classic-v1.json").read_text())
    data["options"][OPTION_QUALIFYING_WAGER_CENTS] = 1000
    result = judge_document(round_doc(ENVY_DEALER, *ENVY_SEATS), ruleset_from_dict(data))
    assert envy(result) == {1: 0, 2: 0, 3: 0, 4: 0, 5: 0}


# ---------------------------------------------------------------------------------------
# Player-banked rounds: side wagers are between each seat and the house (6a.14)
# ---------------------------------------------------------------------------------------

BANKER = "Qs Qh Qd 7c 4s / Jd 8h"       # seat 3: three queens behind, J-8 in front
WINNER = "As Ah Ad 6c 3s / Kd Th"       # three aces > three queens, K-T > J-8: wins
LOSER = "9s 9h 5d 5c 2s / Tc 3h"        # two pair < three queens, T-3 < J-8: loses
BANK_DEALER = "Ts 8s 6d 4c 2c / 7h 3d"  # T-high < three queens, 7-3 < J-8: loses


def banked_round(co_bank: bool, *, side: bool = True) -> dict[str, Any]:
    side_1 = {"fortune": 500} if side else {}
    side_2 = {"progressive": 100} if side else {}
    side_3 = {"fortune": 500} if side else {}
    return round_doc(BANK_DEALER,
                     seat(1, WINNER, main=2000, **side_1),
                     seat(2, LOSER, main=1000, **side_2),
                     seat(3, BANKER, main=5000, **side_3),
                     banker={"seat": 3, "co_bank": co_bank}, dealer_wager=2000)


def test_6a_14_player_banked_side_wagers_settle_with_the_house_not_the_banker() -> None:
    # Main wagers (as without side wagers): seat 1 wins 2000, pays 100 commission: +1900;
    # seat 2 loses 1000; the dealer's 2000 loses to the banker: dealer net -2000. The
    # banker's gross = -(+2000 - 1000) - (-2000) = +1000; commission 5% = 50; net 950.
    # Side wagers: seat 1 three aces, Fortune 3 to 1: +1500; seat 2 two pair, Progressive
    # loses 100; the banker seat's own Fortune on three queens, 3 to 1: +1500 (6a.14: its
    # side wagers settle as for any seat). No four of a kind: no Envy.
    # side total = 1500 - 100 + 1500 = 2900, paid by the house.
    # house_net = commissions 100 + 50, co-bank share 0, dealer -2000, side -2900 = -4750.
    # Check: seats 1900 + 1500 - 1000 - 100 + 1500 = 3800; + 950 - 4750 = 0.
    result = judge(banked_round(co_bank=False))
    assert wagers(result, 1) == {"main": win(1900, 100), "fortune": win(1500)}
    assert wagers(result, 2) == {"main": loss(1000), "progressive": loss(100)}
    assert wagers(result, 3) == {"fortune": win(1500)}
    assert result["dealer"]["net"] == -2000
    assert result["banker"] == {"seat": 3, "net": 950, "commission": 50, "house_net": -4750}
    without = judge(banked_round(co_bank=False, side=False))
    assert without["banker"] == {"seat": 3, "net": 950, "commission": 50, "house_net": -1850}


def test_6a_14_co_banked_round_with_side_wagers_conserves_money() -> None:
    # co-banked: gross +1000, the banker's half 500, commission 5% = 25, net 475; the house
    # keeps the other 500. house_net = 100 + 25 + 500 - 2000 - 2900 (side) = -4275.
    # Check: seats 3800 + 475 - 4275 = 0.
    result = judge(banked_round(co_bank=True))
    assert result["banker"] == {"seat": 3, "net": 475, "commission": 25, "house_net": -4275}


def test_6a_11_the_player_bankers_hand_earns_the_other_players_envy() -> None:
    # the banker seat holds four nines (a $5 Envy hand: it is a player at the table, not the
    # dealer); seat 1 has a $5 Fortune, a Qualifying Wager: Envy 500, paid by the house.
    # seat 1 (three aces) loses to four nines behind: with K-T > 8-4 in front, a push.
    # Seat 1's Fortune on three aces: +1500. The banker's gross is 0: net 0, no commission.
    # house_net = -1500 (Fortune) - 500 (Envy) = -2000. Check: 1500 + 500 + 0 - 2000 = 0.
    result = judge(round_doc(BANK_DEALER,
                             seat(1, WINNER, main=2000, fortune=500),
                             seat(3, "9d 9h 9c 9s 7c / 8h 4s"),
                             banker={"seat": 3}))
    assert envy(result) == {1: 500, 3: 0}
    assert wagers(result, 1) == {"main": {"outcome": "push", "net": 0, "commission": 0},
                                 "fortune": win(1500)}
    assert result["banker"] == {"seat": 3, "net": 0, "commission": 0, "house_net": -2000}


# ---------------------------------------------------------------------------------------
# Bad input and the ruleset
# ---------------------------------------------------------------------------------------


def test_6a_13_progressive_meter_is_required_when_a_progressive_wager_is_present() -> None:
    doc = round_doc(LOW_DEALER, seat(4, "Kh Th 8h 5h 2h / Ad Qc", progressive=100), meter=None)
    with pytest.raises(DocumentError,
                       match=r"progressive_meter .*required.*seat 4 wagers\.progressive 100"):
        judge(doc)
    # a Fortune wager needs no meter, nor does a zero Progressive wager (left out: 6a.18)
    fine = round_doc(LOW_DEALER, seat(4, "Kh Th 8h 5h 2h / Ad Qc", fortune=500, progressive=0),
                     meter=None)
    assert wagers(judge(fine), 4) == {"fortune": win(2000)}


def test_progressive_meter_must_be_integer_cents() -> None:
    doc = round_doc(LOW_DEALER, seat(4, "Kh Th 8h 5h 2h / Ad Qc", progressive=100))
    doc["progressive_meter"] = 2500.5
    with pytest.raises(DocumentError, match=r"progressive_meter must be .*cents, got 2500\.5"):
        judge(doc)


def test_a_ruleset_without_the_fortune_paytable_refuses_a_fortune_wager_naming_it() -> None:
    data = json.loads((REPO / "replay/rulesets/pai_gow_poker-classic-v1.json").read_text())
    del data["paytables"][FORTUNE]
    with pytest.raises(RulesetError, match=r"no paytable 'fortune'"):
        judge_document(round_doc(LOW_DEALER, seat(1, "Kh Th 8h 5h 2h / Ad Qc", fortune=500)),
                       ruleset_from_dict(data))


def test_classic_ruleset_posts_the_face_up_side_wager_tables_and_declares_what_it_reads(
) -> None:
    # docs/rules.md 6a.18: "settled as in Face Up", so the same defaults as docs/rules.md 6
    for name in (FORTUNE, PROGRESSIVE, ENVY):
        assert CLASSIC.paytables[name] == FACE_UP.paytables[name], name
    assert CLASSIC.option(OPTION_QUALIFYING_WAGER_CENTS) == 500  # § 688a.1: at least $5
    assert set(CLASSIC.options) == RULES.option_names
    assert set(CLASSIC.paytables) == RULES.paytable_names == {FORTUNE, PROGRESSIVE, ENVY}
    # the names this module declares are the ones settle_bonus_wagers reads
    assert (FORTUNE, PROGRESSIVE, ENVY, OPTION_QUALIFYING_WAGER_CENTS) == (
        face_up_pai_gow.FORTUNE, face_up_pai_gow.PROGRESSIVE, face_up_pai_gow.ENVY,
        face_up_pai_gow.QUALIFYING_WAGER_CENTS)


# ---------------------------------------------------------------------------------------
# Properties (Hypothesis)
# ---------------------------------------------------------------------------------------

ENVY_CENTS = {"natural_seven_card_straight_flush": 500_000,
              "royal_flush_plus_royal_match": 100_000,
              "seven_card_straight_flush_with_joker": 50_000, "five_aces": 25_000,
              "royal_flush": 5_000, "straight_flush": 2_000, "four_of_a_kind": 500}
"""docs/rules.md 6 Envy sums, written out again here."""
FORTUNE_ODDS = {"natural_seven_card_straight_flush": 8000, "royal_flush_plus_royal_match": 2000,
                "seven_card_straight_flush_with_joker": 1000, "five_aces": 400,
                "royal_flush": 150, "straight_flush": 50, "four_of_a_kind": 25,
                "full_house": 5, "flush": 4, "three_of_a_kind": 3, "straight": 2}
"""docs/rules.md 6 / 2.4 Fortune odds (to 1), written out again here."""
QUALIFYING = 500


def tokens(cards: Any) -> list[str]:
    return [str(card) for card in cards]


@st.composite
def rounds_with_side_wagers(draw: st.DrawFn, banker: str) -> dict[str, Any]:
    """A classic round dealt from one shuffled deck to the dealer and one to six seats, every
    hand set by the house way, main, Fortune and Progressive wagers of 0 to $1,000 (the
    Qualifying Wager, $5, among them); ``banker``: "dealer", "seat" or "co_bank". Envy hands
    being rare (about one seven-card hand in 400 holds four of a kind), up to two ranks'
    four cards are moved into one hand each (the dealer's included) before the deal."""
    deck = list(draw(st.permutations(DECK_53)))
    players = draw(st.integers(min_value=1, max_value=6))
    for _ in range(draw(st.integers(min_value=0, max_value=2))):
        rank = draw(st.sampled_from("23456789TJQKA"))
        hand_number = draw(st.integers(min_value=0, max_value=players))
        quad = [card for card in deck if str(card)[0] == rank]
        rest = [card for card in deck if str(card)[0] != rank]
        deck = rest[:7 * hand_number] + quad + rest[7 * hand_number:]
    amounts = st.sampled_from([0, 100, 499, 500, 2500, 100_000])

    def set_by_house_way(cards: list[Any]) -> dict[str, list[str]]:
        high, low = house_way(cards)
        return {"cards": tokens(cards), "high": tokens(high), "low": tokens(low)}

    doc: dict[str, Any] = {"round_id": "r-prop", "game": GAME, "progressive_meter":
                           draw(st.integers(min_value=0, max_value=10_000_000)),
                           "dealer": set_by_house_way(list(deck[:7]))}
    doc["seats"] = [
        {"seat": number, **set_by_house_way(list(deck[7 * number:7 * number + 7])),
         "wagers": {"main": draw(amounts), "fortune": draw(amounts),
                    "progressive": draw(amounts)}}
        for number in range(1, players + 1)
    ]
    if banker != "dealer":
        doc["banker"] = {"seat": draw(st.integers(min_value=1, max_value=players)),
                         "co_bank": banker == "co_bank"}
        doc["dealer"]["wager"] = draw(amounts)
    return doc


def without_side_wagers(doc: dict[str, Any]) -> dict[str, Any]:
    bare = copy.deepcopy(doc)
    for entry in bare["seats"]:
        entry["wagers"] = {"main": entry["wagers"]["main"]}
    return bare


def check_side_wagers(doc: dict[str, Any], result: dict[str, Any]) -> int:
    """Every Fortune wager and every seat's Envy against the simple seven-card classifier of
    tests/test_seven_card_classes.py and the tables written out above; every Progressive
    wager loses its amount below a full house and wins a non-negative award otherwise.
    Returns the seats' total net on side wagers plus Envy."""
    classes = {entry["seat"]: simple_seven(parse_cards(" ".join(entry["cards"])))
               for entry in doc["seats"]}
    total = 0
    for entry, out in zip(doc["seats"], result["seats"], strict=True):
        assert entry["seat"] == out["seat"]
        placed, number = entry["wagers"], entry["seat"]
        fortune = out["wagers"].get("fortune")
        odds = FORTUNE_ODDS.get(classes[number] or "")
        if placed["fortune"] == 0:
            assert fortune is None
        elif odds is None:
            assert fortune == loss(placed["fortune"])
        else:
            assert fortune == win(placed["fortune"] * odds)
        progressive = out["wagers"].get("progressive")
        if placed["progressive"] == 0:
            assert progressive is None
        elif classes[number] in (None, "flush", "three_of_a_kind", "straight"):
            assert progressive == loss(placed["progressive"])
        else:
            assert progressive is not None and progressive["outcome"] == "win"
            assert progressive["net"] >= 0
        qualifies = placed["fortune"] >= QUALIFYING or placed["progressive"] >= QUALIFYING
        expected_envy = sum(ENVY_CENTS.get(cls or "", 0) for other, cls in classes.items()
                            if other != number) if qualifies else 0
        assert out["envy"] == expected_envy
        total += sum(w["net"] for name, w in out["wagers"].items() if name != "main")
        total += out["envy"]
    event(f"Envy paid: {any(out['envy'] for out in result['seats'])}")
    return total


@settings(max_examples=150, deadline=None)
@given(rounds_with_side_wagers("dealer"))
def test_side_wagers_change_no_main_result_and_settle_by_the_tables_dealer_banked(
    doc: dict[str, Any]
) -> None:
    result = judge(doc)
    bare = judge(without_side_wagers(doc))
    for out, plain in zip(result["seats"], bare["seats"], strict=True):
        assert out["wagers"].get("main") == plain["wagers"].get("main")
    check_side_wagers(doc, result)
    assert "banker" not in result


@pytest.mark.parametrize("banker", ["seat", "co_bank"])
@settings(max_examples=150, deadline=None)
@given(data=st.data())
def test_money_is_conserved_with_side_wagers_in_a_player_banked_round(
    banker: str, data: st.DataObject
) -> None:
    doc = data.draw(rounds_with_side_wagers(banker))
    result = judge(doc)
    bare = judge(without_side_wagers(doc))
    side_total = check_side_wagers(doc, result)
    # the player banker's account does not see the side wagers (6a.14); the house's does
    assert (result["banker"]["net"], result["banker"]["commission"]) == (
        bare["banker"]["net"], bare["banker"]["commission"])
    assert result["banker"]["house_net"] == bare["banker"]["house_net"] - side_total
    # conservation: every seat's wagers and Envy + the banker + the house == 0
    seats = sum(w["net"] for s in result["seats"] for w in s["wagers"].values())
    envy_paid = sum(s["envy"] for s in result["seats"])
    assert seats + envy_paid + result["banker"]["net"] + result["banker"]["house_net"] == 0
