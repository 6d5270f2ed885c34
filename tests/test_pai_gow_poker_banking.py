"""Player-banked classic pai gow poker rounds: the player banker, the dealer's wager against
it, and co-banking 50/50 with the house (docs/rules.md 1.2, 6a.1, 6a.7, 6a.14, 7.7; pai gow
poker procedure (10), (11); pai gow poker settlement (5), (12)-(16)).

Every expected amount is worked out by hand in the comments from these hands (one deck, no
card twice in a round):

- banker (seat 3): pair of queens with 9-7-4 behind, J-8 in front;
- WIN: pair of kings > pair of queens, Q-T > J-8: the player wins;
- LOSE: pair of jacks < pair of queens, T-9 < J-8: the player loses;
- PUSH: pair of aces > pair of queens, 9-7 < J-8: a push;
- COPY: pair of queens with 9-7-4 and J-8, other suits: two copies, which the banker wins;
- DEALER_LOW: T-9-8-5-2 behind, 4-3 in front: below the banker in both hands (but above
  LOSE's low hand, so a LOSE seat would not lose to the dealer's low hand).
"""

from __future__ import annotations

import pytest

from replay.document import DocumentError
from replay.errors import RulesetError
from replay.games.pai_gow_poker import GAME, judge_document
from replay.rulesets import Ruleset, load_ruleset
from tests.test_pai_gow_poker import document, main_of

CLASSIC = load_ruleset("pai_gow_poker-classic-v1")

BANKER = "Qs Qh 9d 7c 4s / Jd 8h"
WIN = "Ks Kh 8d 6c 3s / Qd Th"
LOSE = "Js Jh Td 6d 2s / Tc 9h"
PUSH = "As Ah 5d 3c 2h / 9c 7h"
COPY = "Qd Qc 9h 7d 4c / Js 8c"
DEALER_LOW = "Ts 9s 8s 5c 2c / 4h 3d"


def banked(*seats: tuple[int, str, int | None], dealer: str = DEALER_LOW,
           dealer_wager: int | None = None, co_bank: bool | None = None,
           banker_main: int | None = None) -> dict:
    """A round banked by seat 3 (holding BANKER), with the other ``seats``."""
    banker: dict = {"seat": 3}
    if co_bank is not None:
        banker["co_bank"] = co_bank
    return document(dealer, (3, BANKER, banker_main), *seats, banker=banker,
                    dealer_wager=dealer_wager)


def judge(doc: dict, ruleset: Ruleset = CLASSIC) -> dict:
    return judge_document(doc, ruleset)


def conserved(result: dict) -> int:
    """Players' nets + the banker's net + the house's net: zero when money is conserved."""
    players = sum(w["net"] for s in result["seats"] for w in s["wagers"].values())
    return players + result["banker"]["net"] + result["banker"]["house_net"]


FULL_ROUND = dict(seats=((1, WIN, 2500), (2, LOSE, 1000), (4, PUSH, 4000)),
                  dealer_wager=2000, banker_main=5000)


def test_issue_3_result_form_of_a_player_banked_round() -> None:
    # seat 1 wins 2500 less 125 commission; seat 2 loses 1000; seat 4 pushes. The dealer's
    # 2000 loses to the banker (T-high < queens, 4-3 < J-8). Seat 3's own 5000 is ignored.
    # Banker's gross = -(+2500 - 1000 + 0) - (-2000) = +500; no co-bank, so its share is 500
    # and its commission 5% of 500 = 25: net 475. The house: 125 + 25 commissions, no co-bank
    # share, and the dealer's -2000: house_net = -1850. Check: 2375 - 1000 + 0 + 475 - 1850 = 0.
    result = judge(banked(*FULL_ROUND["seats"], dealer_wager=2000, banker_main=5000))
    assert result == {
        "round_id": "r-1", "ruleset": "pai_gow_poker-classic-v1", "evaluated": True,
        "dealer": {"foul": False, "house_way": False, "ace_high_pai_gow": False,
                   "qualifies": None, "net": -2000},
        "seats": [
            {"seat": 1, "foul": False,
             "wagers": {"main": {"outcome": "win", "net": 2375, "commission": 125}},
             "envy": 0},
            {"seat": 2, "foul": False,
             "wagers": {"main": {"outcome": "loss", "net": -1000, "commission": 0}},
             "envy": 0},
            {"seat": 3, "foul": False, "wagers": {}, "envy": 0},
            {"seat": 4, "foul": False,
             "wagers": {"main": {"outcome": "push", "net": 0, "commission": 0}}, "envy": 0},
        ],
        "banker": {"seat": 3, "net": 475, "commission": 25, "house_net": -1850},
    }
    assert list(result) == ["round_id", "ruleset", "evaluated", "dealer", "seats", "banker"]
    assert list(result["banker"]) == ["seat", "net", "commission", "house_net"]


def test_procedure_11_co_bank_splits_the_banker_gross_50_50_with_the_house() -> None:
    # the same round co-banked: the gross +500 is shared 250 / 250; the banker's commission is
    # 5% of its 250 = 12.5, rounded down to 12 (6a.1): net 238. The house: 125 + 12
    # commissions + its 250 share - 2000 dealer = -1613. Check: 1375 + 238 - 1613 = 0.
    result = judge(banked(*FULL_ROUND["seats"], dealer_wager=2000, banker_main=5000,
                          co_bank=True))
    assert result["banker"] == {"seat": 3, "net": 238, "commission": 12, "house_net": -1613}
    assert main_of(result, 1) == {"outcome": "win", "net": 2375, "commission": 125}
    assert conserved(result) == 0


def test_6a_14_players_compare_against_the_banker_seat_not_the_dealer() -> None:
    # LOSE would beat the dealer (jacks > T-high, T-9 > 4-3) but loses to the banker
    result = judge(banked((2, LOSE, 1000)))
    assert main_of(result, 2) == {"outcome": "loss", "net": -1000, "commission": 0}
    dealer_banked = judge(document(DEALER_LOW, (2, LOSE, 1000)))
    assert main_of(dealer_banked, 2) == {"outcome": "win", "net": 950, "commission": 50}
    assert "banker" not in dealer_banked


def test_settlement_5_copies_go_to_the_player_banker() -> None:
    # two copies: the banker wins them; gross +1000, commission 50, net 950; house 50
    result = judge(banked((5, COPY, 1000)))
    assert main_of(result, 5) == {"outcome": "loss", "net": -1000, "commission": 0}
    assert result["banker"] == {"seat": 3, "net": 950, "commission": 50, "house_net": 50}


def test_6a_14_each_winning_player_pays_their_own_commission() -> None:
    # seat 1 wins 2000 and pays 100 itself; seat 2 loses 2500. Gross = -2000 + 2500 = 500;
    # the banker pays 5% of its net win 500 = 25, not of the 2500 it took (1.2: "charged on
    # the net win"): net 475. House: 100 + 25 = 125. Check: 1900 - 2500 + 475 + 125 = 0.
    result = judge(banked((1, WIN, 2000), (2, LOSE, 2500)))
    assert main_of(result, 1) == {"outcome": "win", "net": 1900, "commission": 100}
    assert result["banker"] == {"seat": 3, "net": 475, "commission": 25, "house_net": 125}


def test_settlement_14_leftover_stack_paid_to_the_player_banker_less_5_percent() -> None:
    # a single loss of 1010: the stack of 1010 goes to the banker less 5% = 50.5, rounded
    # down to 50 (6a.1): net 960
    result = judge(banked((2, LOSE, 1010)))
    assert result["banker"] == {"seat": 3, "net": 960, "commission": 50, "house_net": 50}


def test_6a_14_a_losing_player_banker_pays_no_commission() -> None:
    # seat 1 wins 2500: the banker's gross is -2500, no commission; house takes seat 1's 125
    result = judge(banked((1, WIN, 2500)))
    assert result["banker"] == {"seat": 3, "net": -2500, "commission": 0, "house_net": 125}
    assert conserved(result) == 0


def test_6a_14_banker_seat_own_main_wager_is_ignored() -> None:
    with_main = judge(banked((2, LOSE, 1000), banker_main=5000))
    without = judge(banked((2, LOSE, 1000)))
    assert with_main == without
    (banker_seat,) = [s for s in with_main["seats"] if s["seat"] == 3]
    assert banker_seat["wagers"] == {}


def test_settlement_12_dealer_wins_against_the_player_banker_without_commission() -> None:
    # dealer holds WIN's hand and wagers 2000: a win paid 2000 (no commission, 6a.14). The
    # banker's gross is -2000, no commission; the house is up the dealer's 2000
    result = judge(banked(dealer=WIN, dealer_wager=2000))
    assert result["dealer"]["net"] == 2000
    assert result["banker"] == {"seat": 3, "net": -2000, "commission": 0, "house_net": 2000}


def test_settlement_12_a_dealer_loses_its_wager_to_the_player_banker() -> None:
    # dealer -2000; the banker's gross +2000, commission 100, net 1900; house 100 - 2000
    result = judge(banked(dealer=DEALER_LOW, dealer_wager=2000))
    assert result["dealer"]["net"] == -2000
    assert result["banker"] == {"seat": 3, "net": 1900, "commission": 100,
                                "house_net": -1900}


def test_settlement_12_b_dealer_tie_returns_its_wager_to_the_rack() -> None:
    # dealer holds PUSH's hand: one hand each, the wager goes back in the rack (net 0)
    result = judge(banked(dealer=PUSH, dealer_wager=2000))
    assert result["dealer"]["net"] == 0
    assert result["banker"] == {"seat": 3, "net": 0, "commission": 0, "house_net": 0}


def test_6a_14_dealer_copies_go_to_the_player_banker() -> None:
    result = judge(banked(dealer=COPY, dealer_wager=2000))
    assert result["dealer"]["net"] == -2000
    assert result["banker"] == {"seat": 3, "net": 1900, "commission": 100,
                                "house_net": -1900}


def test_procedure_10_dealer_without_a_wager_does_not_play_the_banker() -> None:
    # only seat 2's 1000 reaches the banker: net 950, house 50, dealer 0
    result = judge(banked((2, LOSE, 1000), dealer=WIN))
    assert result["dealer"]["net"] == 0
    assert result["banker"] == {"seat": 3, "net": 950, "commission": 50, "house_net": 50}


def test_procedure_10_dealer_wagers_only_against_a_player_banker() -> None:
    with pytest.raises(DocumentError, match="dealer wager 2000: the dealer wagers only"):
        judge(document(DEALER_LOW, (2, LOSE, 1000), dealer_wager=2000))


@pytest.mark.parametrize(
    ("seats", "net", "commission", "house_net", "net_range", "commission_range"),
    [
        # seat 2 loses 1001: gross +1001, the banker's half 500.5 rounded toward zero = 500,
        # the house's 501; commission 5% of 500 = 25: net 475; house 25 + 501 = 526. The odd
        # cent may go either way (6a.19): a share of 501 pays 25 (25.05 down): net 476
        (((2, LOSE, 1001),), 475, 25, 526, [475, 476], [25, 25]),
        # seat 1 wins 1001 and pays 50 (50.05 down): gross -1001, the banker's half -500.5
        # toward zero = -500, the house's -501; house 50 - 501 = -451; lawful -501 to -500
        (((1, WIN, 1001),), -500, 0, -451, [-501, -500], [0, 0]),
    ],
)
def test_6a_14_co_bank_half_of_an_odd_gross_is_rounded_toward_zero(
    seats: tuple, net: int, commission: int, house_net: int, net_range: list[int],
    commission_range: list[int],
) -> None:
    result = judge(banked(*seats, co_bank=True))
    assert result["banker"] == {"seat": 3, "net": net, "commission": commission,
                                "house_net": house_net, "net_range": net_range,
                                "commission_range": commission_range}
    assert conserved(result) == 0


def test_co_bank_share_and_rounding_come_from_the_ruleset() -> None:
    # away from zero: seat 2's 1001 gives the banker 501 and the house 500; commission 5% of
    # 501 = 25.05, down to 25: net 476; house 25 + 500 = 525
    away = Ruleset(
        id="pai_gow_poker-test-v1", game=GAME, title="t", effective_from="2024-01-01",
        effective_to=None, commission=CLASSIC.commission,
        options={"co_bank_share_bps": 5000, "co_bank_rounding": "away_from_zero"},
    )
    result = judge(banked((2, LOSE, 1001), co_bank=True), away)
    assert result["banker"] == {"seat": 3, "net": 476, "commission": 25, "house_net": 525}
    assert CLASSIC.option("co_bank_share_bps") == 5000
    assert CLASSIC.option("co_bank_rounding") == "toward_zero"


def test_co_bank_without_the_ruleset_options_is_refused_naming_the_option() -> None:
    bare = Ruleset(
        id="pai_gow_poker-test-v1", game=GAME, title="t", effective_from="2024-01-01",
        effective_to=None, commission=CLASSIC.commission,
    )
    with pytest.raises(RulesetError, match="co_bank_share_bps"):
        judge(banked((2, LOSE, 1001), co_bank=True), bare)
    # a round without a co-bank does not need them
    assert judge(banked((2, LOSE, 1000)), bare)["banker"]["net"] == 950


def test_6a_7_fouled_player_banker_hand_is_reported_and_compared_as_set() -> None:
    # banker 9-high behind, A-A in front: a foul. Seat 1's pair of twos beats 9-high, its
    # K-Q loses to A-A: a push, not a win by forfeit
    doc = document("Ts 9h 7s 5c 3d / 4s 3c", (1, "2h 2d Qc Jc Td / Ks Qh", 2500),
                   (3, "9s 8d 6c 4h 2s / Ah Ad", None), banker={"seat": 3})
    result = judge(doc)
    assert [s["foul"] for s in result["seats"]] == [False, True]
    assert main_of(result, 1) == {"outcome": "push", "net": 0, "commission": 0}
    assert result["banker"] == {"seat": 3, "net": 0, "commission": 0, "house_net": 0}


def test_6a_7_fouled_dealer_hand_against_a_player_banker_is_compared_as_set() -> None:
    # dealer 9-high behind, A-A in front (a foul) against the banker's twos / K-Q: the dealer
    # loses the high hand, wins the low: a push, its 2000 returned
    doc = document("9s 8d 6c 4h 2s / Ah Ad", (3, "2h 2d Qc Jc Td / Ks Qh", None),
                   banker={"seat": 3, "co_bank": False}, dealer_wager=2000)
    result = judge(doc)
    assert result["dealer"]["foul"] is True and result["dealer"]["net"] == 0


def test_settlement_6_fouled_player_loses_to_the_player_banker() -> None:
    # seat 1's pair of threes behind is below its K-K in front: a foul, which loses
    doc = banked((1, "3h 3c Ac Kc Td / Ks Kh", 1000))
    result = judge(doc)
    assert main_of(result, 1) == {"outcome": "loss", "net": -1000, "commission": 0}
    assert result["banker"] == {"seat": 3, "net": 950, "commission": 50, "house_net": 50}


def test_the_banker_seat_must_set_its_hand() -> None:
    doc = banked((2, LOSE, 1000))
    for key in ("high", "low"):
        del doc["seats"][0][key]
    with pytest.raises(DocumentError, match="seat 3's hand was not set"):
        judge(doc)


def test_a_player_banked_round_with_only_the_banker_seat_is_judged() -> None:
    result = judge(banked())
    assert result["banker"] == {"seat": 3, "net": 0, "commission": 0, "house_net": 0}
    assert result["dealer"]["net"] == 0
