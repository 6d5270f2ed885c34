"""Hypothesis properties of classic pai gow poker, as the rules engine must keep them:

- a set hand uses exactly the dealt cards: the house way's and every one of the 21 splits,
  and a round document whose set hand does not is refused, naming the seat;
- money is conserved between the players, the banker and the house, in dealer-banked and
  player-banked rounds, with and without the house co-banking (docs/rules.md 6a.14): the
  players' nets, the banker seat's net and the house's net add up to zero, commission going
  to the house;
- swapping a player's and the banker's hands turns a win into a loss, except for copies.
  Precisely, for hands that are not fouls (a fouled player hand loses whatever the banker
  holds, 6a.6, while a fouled banker hand is compared as set, 6a.7, so fouls are not
  symmetric): count the hands the player wins outright (2 for a win, 1 for a push, 0 for a
  loss) before and after the swap, and the copies between the two holdings (0, 1 or 2);
  then ``won before + won after + copies == 2``, because each of the two hands is won
  outright by one side or is a copy, and copies always go to whoever banks. So: with no
  copy a win becomes a loss, a loss a win and a push stays a push, and the player's result
  before commission changes sign; with one copy a push becomes a loss and a loss a push;
  with two copies the player loses both ways; a win (which needs no copy) always becomes a
  loss.
"""

from __future__ import annotations

from collections import Counter
from itertools import combinations

import pytest
from hypothesis import assume, event, given, settings
from hypothesis import strategies as st

from replay.cards import DECK_52, DECK_53, Card, parse_cards
from replay.document import DocumentError
from replay.games.pai_gow_poker import GAME, house_way, is_foul, judge_document, splits
from replay.rulesets import Wheel, load_ruleset
from tests.test_golden_house_way import low_key
from tests.test_pai_gow_poker import simple_rank

CLASSIC = load_ruleset("pai_gow_poker-classic-v1")
RATE_PERCENT = 5        # docs/rules.md 6a.1: 5% of a win, rounded down to the cent
WON = {"win": 2, "push": 1, "loss": 0}

seven_cards = st.lists(st.sampled_from(DECK_53), min_size=7, max_size=7, unique=True)


def tokens(cards: tuple[Card, ...] | list[Card]) -> list[str]:
    return [str(card) for card in cards]


@st.composite
def set_hand(draw: st.DrawFn, cards: list[Card], *, fouls: bool = True) -> dict:
    """Seven cards set by the house way or by any one of the 21 splits (fouls allowed unless
    ``fouls`` is False)."""
    choices = [house_way(cards)] + [
        (high, low) for high, low in splits(cards) if fouls or not is_foul(high, low)]
    high, low = draw(st.sampled_from(choices))
    return {"cards": tokens(cards), "high": tokens(high), "low": tokens(low)}


@st.composite
def rounds(draw: st.DrawFn, banker: str) -> dict:
    """A classic round document dealt from one shuffled deck to the dealer and one to six
    seats, hands set any way, main wagers of 0 to $100,000. ``banker``: "dealer", "seat"
    (a player banker) or "co_bank" (a player banker co-banking with the house)."""
    deck = draw(st.permutations(DECK_53))
    players = draw(st.integers(min_value=1, max_value=6))
    numbers = draw(st.lists(st.integers(min_value=1, max_value=9), min_size=players,
                            max_size=players, unique=True))
    amounts = st.one_of(st.just(0), st.integers(min_value=1, max_value=10_000_000))
    doc: dict = {"round_id": "r-prop", "game": GAME,
                 "dealer": draw(set_hand(list(deck[:7])))}
    doc["seats"] = [
        {"seat": number, **draw(set_hand(list(deck[7 * i:7 * i + 7]))),
         "wagers": {"main": draw(amounts)}}
        for i, number in enumerate(numbers, start=1)
    ]
    if banker != "dealer":
        doc["banker"] = {"seat": draw(st.sampled_from(numbers)), "co_bank": banker == "co_bank"}
        doc["dealer"]["wager"] = draw(amounts)
    return doc


def gross(wager: dict, amount: int) -> int:
    """A main wager's result before commission, from its outcome alone."""
    return {"win": amount, "loss": -amount, "push": 0}[wager["outcome"]]


def check_wagers(doc: dict, result: dict, banker_seat: int | None) -> tuple[int, int, int]:
    """Every main wager in the result: the seat's amount, present unless zero (6a.18) or
    the banker's own (6a.14), net + commission = its result before commission, commission
    5% of a win rounded down and none otherwise. Returns (sum of nets, sum of results
    before commission, sum of commissions)."""
    amount_of = {seat["seat"]: seat["wagers"]["main"] for seat in doc["seats"]}
    nets = grosses = commissions = 0
    for seat in result["seats"]:
        main = seat["wagers"].get("main")
        amount = amount_of[seat["seat"]]
        if amount == 0 or seat["seat"] == banker_seat:
            assert seat["wagers"] == {}
            continue
        assert main is not None
        expected_commission = amount * RATE_PERCENT // 100 if main["outcome"] == "win" else 0
        assert main["commission"] == expected_commission
        assert main["net"] + main["commission"] == gross(main, amount)
        nets += main["net"]
        grosses += gross(main, amount)
        commissions += main["commission"]
    assert [s["seat"] for s in result["seats"]] == sorted(amount_of)
    return nets, grosses, commissions


@settings(max_examples=300, deadline=None)
@given(seven_cards, st.sampled_from(list(Wheel)))
def test_house_way_and_every_split_use_exactly_the_dealt_cards(
    cards: list[Card], wheel: Wheel
) -> None:
    high, low = house_way(cards, wheel=wheel)
    assert (len(high), len(low)) == (5, 2)
    assert Counter(high + low) == Counter(cards)
    found = list(splits(cards))
    assert len({frozenset(low) for _, low in found}) == 21
    for high, low in found:
        assert (len(high), len(low)) == (5, 2)
        assert Counter(high + low) == Counter(cards)


@settings(max_examples=200, deadline=None)
@given(rounds("dealer"), st.data())
def test_a_document_whose_set_hand_is_not_the_dealt_cards_is_refused(
    doc: dict, data: st.DataObject
) -> None:
    seat = data.draw(st.sampled_from(doc["seats"]))
    position = data.draw(st.integers(min_value=0, max_value=4))
    stranger = data.draw(st.sampled_from([str(c) for c in DECK_53
                                          if str(c) not in seat["cards"]]))
    seat["high"][position] = stranger
    with pytest.raises(DocumentError, match=f"seat {seat['seat']}"):
        judge_document(doc, CLASSIC)


@settings(max_examples=300, deadline=None)
@given(rounds("dealer"))
def test_money_is_conserved_in_a_dealer_banked_round(doc: dict) -> None:
    result = judge_document(doc, CLASSIC)
    nets, grosses, commissions = check_wagers(doc, result, None)
    assert "banker" not in result and result["dealer"]["net"] == 0
    # the house (the dealer's bank) takes what the players lose, pays what they win, and
    # keeps the commission: its result and the players' add up to zero
    house = -grosses + commissions
    assert nets + house == 0


@pytest.mark.parametrize("banker", ["seat", "co_bank"])
@settings(max_examples=300, deadline=None)
@given(data=st.data())
def test_money_is_conserved_in_a_player_banked_round(banker: str, data: st.DataObject) -> None:
    doc = data.draw(rounds(banker))
    result = judge_document(doc, CLASSIC)
    banker_seat = doc["banker"]["seat"]
    nets, grosses, commissions = check_wagers(doc, result, banker_seat)
    dealer_net, wager = result["dealer"]["net"], doc["dealer"]["wager"]
    assert dealer_net in {wager, -wager, 0}
    account = result["banker"]
    assert account["seat"] == banker_seat
    # 6a.14, worked independently: the banker's gross, its share, commission on a net win
    bank = -grosses - dealer_net
    share = bank if banker == "seat" else (abs(bank) // 2) * (1 if bank >= 0 else -1)
    banker_commission = share * RATE_PERCENT // 100 if share > 0 else 0
    assert (account["net"], account["commission"]) == (share - banker_commission,
                                                       banker_commission)
    assert account["house_net"] == commissions + banker_commission + (bank - share) + dealer_net
    # conservation: players + banker seat + house (the dealer's wager is the house's money)
    assert nets + account["net"] + account["house_net"] == 0


@st.composite
def random_holdings(draw: st.DrawFn) -> tuple[dict, dict, dict]:
    """(player, banker, dealer) holdings dealt from one deck, set without fouls."""
    deck = draw(st.permutations(DECK_53))
    return (draw(set_hand(list(deck[:7]), fouls=False)),
            draw(set_hand(list(deck[7:14]), fouls=False)),
            draw(set_hand(list(deck[14:21]))))


@st.composite
def copied_holdings(draw: st.DrawFn) -> tuple[dict, dict, dict]:
    """(player, banker, dealer) where the banker holds a copy of the player's high hand, low
    hand or both: the same ranks in other suits. The player is dealt clubs and diamonds only
    and the copy moves them to hearts and spades, so a copy is never a card already dealt
    (and has no joker, which has no copy)."""
    red_black = [c for c in DECK_52 if str(c)[1] in "cd"]
    player = draw(set_hand(draw(st.permutations(red_black))[:7], fouls=False))
    recolour = draw(st.sampled_from([{"c": "h", "d": "s"}, {"c": "s", "d": "h"}]))

    def copy_of(hand: list[str]) -> list[str]:
        return [t[0] + recolour[t[1]] for t in hand]

    which = draw(st.sampled_from(["high", "low", "both"]))
    high = copy_of(player["high"]) if which != "low" else None
    low = copy_of(player["low"]) if which != "high" else None
    used = set(player["cards"]) | set(high or ()) | set(low or ())
    rest = [str(c) for c in draw(st.permutations(DECK_53)) if str(c) not in used]
    if high is None:
        assert low is not None
        highs = [five for five in combinations(rest[:9], 5)
                 if not is_foul(parse_cards(" ".join(five)), parse_cards(" ".join(low)))]
        assume(highs)  # a low copy of a high pair may leave no high hand that does not foul
        high = list(draw(st.sampled_from(highs)))
    if low is None:
        lows = [two for two in combinations(rest[:9], 2)
                if not is_foul(parse_cards(" ".join(high)), parse_cards(" ".join(two)))]
        assume(lows)
        low = list(draw(st.sampled_from(lows)))
    dealer_cards = [t for t in rest if t not in high + low][:7]
    return (player, {"cards": high + low, "high": high, "low": low},
            {"cards": dealer_cards, "high": dealer_cards[:5], "low": dealer_cards[5:]})


def player_banked(player: dict, banker: dict, dealer: dict, amount: int) -> dict:
    """Seat 1 (the player, wagering ``amount``) against seat 2 (the player banker)."""
    return {"round_id": "r-swap", "game": GAME, "banker": {"seat": 2}, "dealer": dealer,
            "seats": [{"seat": 1, **player, "wagers": {"main": amount}},
                      {"seat": 2, **banker}]}


def copies(one: dict, other: dict) -> int:
    """How many of the two hands are copies, by the simple evaluator of the rule tests and
    the 2-card order of the golden-file test (not the code under test)."""
    return (int(simple_rank(parse_cards(" ".join(one["high"])))
                == simple_rank(parse_cards(" ".join(other["high"]))))
            + int(low_key(one["low"]) == low_key(other["low"])))


def check_swap(holdings: tuple[dict, dict, dict], amount: int) -> int:
    """The swap property of the module docstring; returns the number of copies."""
    player, banker, dealer = holdings
    before = judge_document(player_banked(player, banker, dealer, amount), CLASSIC)
    after = judge_document(player_banked(banker, player, dealer, amount), CLASSIC)
    won, then = before["seats"][0]["wagers"]["main"], after["seats"][0]["wagers"]["main"]
    n = copies(player, banker)
    event(f"{won['outcome']} becomes {then['outcome']} with {n} copies")
    assert WON[won["outcome"]] + WON[then["outcome"]] + n == 2
    if won["outcome"] == "win":
        assert then["outcome"] == "loss"
    if n == 0:
        assert gross(then, amount) == -gross(won, amount)
    if n == 2:
        assert won["outcome"] == then["outcome"] == "loss"
    return n


@settings(max_examples=300, deadline=None)
@given(random_holdings(), st.integers(min_value=1, max_value=10_000_000))
def test_swapping_a_player_and_the_banker_hands_turns_a_win_into_a_loss_except_copies(
    holdings: tuple[dict, dict, dict], amount: int
) -> None:
    check_swap(holdings, amount)


@settings(max_examples=200, deadline=None)
@given(copied_holdings(), st.integers(min_value=1, max_value=10_000_000))
def test_swapping_hands_that_hold_copies_keeps_the_copies_with_the_banker(
    holdings: tuple[dict, dict, dict], amount: int
) -> None:
    assert check_swap(holdings, amount) >= 1
