"""The one-line round notation: exact format, round trip, named errors."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from replay.cards import DECK_53, Card, parse_cards
from replay.errors import NotationError, RoundError
from replay.notation import (
    HandHolding,
    PaiGowRound,
    SeatHolding,
    Wagers,
    parse_round,
    render_round,
)

EXAMPLE = ("r-17 pai_gow_poker D=AsKdQhJcTc/9s2d S1(main 2500)=7h7d5c4s3h/KcQd "
           "S4(main 1000)=JkAhAd8c3c/Ks2h")


def c(text: str) -> tuple[Card, ...]:
    return parse_cards(text)


def example_round() -> PaiGowRound:
    return PaiGowRound(
        round_id="r-17",
        game="pai_gow_poker",
        dealer=HandHolding(cards=c("As Kd Qh Jc Tc 9s 2d"), high=c("As Kd Qh Jc Tc"),
                           low=c("9s 2d")),
        seats=(
            SeatHolding(seat=1, cards=c("7h 7d 5c 4s 3h Kc Qd"), high=c("7h 7d 5c 4s 3h"),
                        low=c("Kc Qd"), wagers={"main": 2500}),
            SeatHolding(seat=4, cards=c("Jk Ah Ad 8c 3c Ks 2h"), high=c("Jk Ah Ad 8c 3c"),
                        low=c("Ks 2h"), wagers={"main": 1000}),
        ),
    )


def test_example_parses_to_the_hand_built_round() -> None:
    assert parse_round(EXAMPLE) == example_round()


def test_example_renders_exactly() -> None:
    assert render_round(example_round()) == EXAMPLE
    assert str(example_round()) == EXAMPLE


def test_hand_not_set_is_the_seven_dealt_cards_without_slash() -> None:
    line = "t2-000007 pai_gow_poker D=7s7h5h4d3c/Jd9c S1(main 1500)=AcQdJsTh8d6h2s"
    rnd = parse_round(line)
    seat = rnd.seats[0]
    assert seat.cards == c("Ac Qd Js Th 8d 6h 2s")
    assert seat.high is None and seat.low is None and not seat.is_set
    assert rnd.dealer.is_set
    assert render_round(rnd) == line


def test_multiple_wagers_main_first_then_by_name() -> None:
    seat = SeatHolding(seat=1, cards=c("2c 3c 4c 5c 6c 7c 8c"),
                       wagers={"progressive": 100, "fortune": 500, "main": 2500})
    rnd = PaiGowRound(round_id="r-1", game="pai_gow_poker",
                      dealer=HandHolding(cards=c("2d 3d 4d 5d 6d 7d 8d")), seats=(seat,))
    assert render_round(rnd) == (
        "r-1 pai_gow_poker D=2d3d4d5d6d7d8d S1(main 2500,fortune 500,progressive 100)="
        "2c3c4c5c6c7c8c"
    )
    assert parse_round(render_round(rnd)).seats[0].wagers == {
        "main": 2500, "fortune": 500, "progressive": 100}


def test_seat_without_wagers_has_no_parentheses() -> None:
    line = "r-2 pai_gow_poker D=2d3d4d5d6d7d8d S3=2c3c4c5c6c7c8c"
    rnd = parse_round(line)
    assert rnd.seats[0].wagers == {} and render_round(rnd) == line


def test_set_hand_keeps_set_order_whatever_the_dealing_order() -> None:
    holding = HandHolding(cards=c("9s 2d As Kd Qh Jc Tc"), high=c("As Kd Qh Jc Tc"),
                          low=c("9s 2d"))
    assert holding.cards == c("As Kd Qh Jc Tc 9s 2d")


def test_set_hand_not_using_the_dealt_cards_is_written_with_the_dealt_cards() -> None:
    holding = HandHolding(cards=c("As Kd Qh Jc Tc 9s 2d"), high=c("As Kd Qh Jc Tc"),
                          low=c("9s 3d"))
    rnd = PaiGowRound(round_id="r-3", game="pai_gow_poker", dealer=holding)
    line = "r-3 pai_gow_poker D=AsKdQhJcTc9s2d:AsKdQhJcTc/9s3d"
    assert render_round(rnd) == line
    assert parse_round(line) == rnd


def test_rounds_are_hashable_values() -> None:
    assert hash(parse_round(EXAMPLE)) == hash(example_round())
    assert Wagers({"main": 5}) == {"main": 5} and hash(Wagers({"main": 5}))


@pytest.mark.parametrize(
    ("line", "named"),
    [
        ("r-1 pai_gow_poker D=AsKdQhJcTc/9sXx", "'Xx'"),
        ("r-1 pai_gow_poker D=AsKdQhJcTc/9s2d S4(main 1000)=JkAhAd8c1c/Ks2h", "'1c'"),
        ("r-1 pai_gow_poker D=AsKdQhJcTc/9s2d S4(main 1000)=JkAhAd8c1c/Ks2h", "seat 4"),
        ("r-1 pai_gow_poker D=AsKdQhJcTc/9s2d S1(main 25.00)=AsKd", "'main 25.00'"),
        ("r-1 pai_gow_poker D=AsKdQhJcTc/9s2d S1(main -5)=AsKd", "'main -5'"),
        ("r-1 pai_gow_poker D=AsKdQhJcTc/9s2d S1()=AsKd", "position 35"),
        ("r-1 pai_gow_poker D=AsKdQhJcTc/9s2d  S1=AsKd", "position 35"),
        ("r-1 pai_gow_poker D=AsKdQhJcTc/9s2d S0=AsKd", "position 35"),
        ("r-1 pai_gow_poker D=AsKdQhJcTc/9s2d S1=AsKd trailing", "position 43, found ' trailing'"),
        ("r-1 pai_gow_poker D=As/Kd/Qh", "'As/Kd/Qh'"),
        ("r-1 pai_gow_poker D=AsKd:Qh", "'AsKd:Qh'"),
        ("r-1 pai_gow_poker S1=AsKd", "'<round_id> <game> D=<hand>'"),
        ("r-1 Pai-Gow D=AsKd", "'Pai-Gow'"),
        ("r-1 pai_gow_poker D=AsKd S1(main 5,main 6)=AsKd", "main given twice"),
    ],
)
def test_bad_notation_is_named(line: str, named: str) -> None:
    with pytest.raises(NotationError) as info:
        parse_round(line)
    assert named in str(info.value)


def test_bad_card_error_carries_the_round_line() -> None:
    line = "r-9 pai_gow_poker D=AsKdQhJcTc/9sXx"
    with pytest.raises(NotationError, match="r-9 pai_gow_poker"):
        parse_round(line)


@pytest.mark.parametrize(
    ("build", "named"),
    [
        (lambda: PaiGowRound(round_id="r 1", game="pai_gow_poker",
                             dealer=HandHolding(cards=())), "'r 1'"),
        (lambda: PaiGowRound(round_id="", game="pai_gow_poker",
                             dealer=HandHolding(cards=())), "''"),
        (lambda: PaiGowRound(round_id="r1", game="Pai Gow",
                             dealer=HandHolding(cards=())), "'Pai Gow'"),
        (lambda: SeatHolding(seat=0, cards=()), "0"),
        (lambda: SeatHolding(seat=1, cards=(), wagers={"main": -5}), "-5"),
        (lambda: SeatHolding(seat=1, cards=(), wagers={"main": 25.0}), "25.0"),
        (lambda: SeatHolding(seat=1, cards=(), wagers={"Main": 5}), "'Main'"),
        (lambda: HandHolding(cards=c("As Kd"), high=c("As")), "low=None"),
        (lambda: HandHolding(cards=("As", "Kd")), "'As'"),
    ],
)
def test_bad_round_values_are_named(build: object, named: str) -> None:
    with pytest.raises(RoundError) as info:
        build()  # type: ignore[operator]
    assert named in str(info.value)


cards_st = st.lists(st.sampled_from(DECK_53), max_size=9)


@st.composite
def hands(draw: st.DrawFn) -> tuple[tuple[Card, ...], tuple[Card, ...] | None,
                                     tuple[Card, ...] | None]:
    cards = tuple(draw(cards_st))
    kind = draw(st.sampled_from(["unset", "set", "mismatched"]))
    if kind == "unset":
        return cards, None, None
    if kind == "set":
        cut = draw(st.integers(min_value=0, max_value=len(cards)))
        return cards, cards[:cut], cards[cut:]
    return cards, tuple(draw(cards_st)), tuple(draw(cards_st))


round_ids = st.text(
    st.characters(codec="utf-8", exclude_categories=("Z", "C")), min_size=1, max_size=12
).filter(lambda s: s.isprintable() and not any(ch.isspace() for ch in s))
wager_names = st.from_regex(r"[a-z][a-z0-9_]{0,10}", fullmatch=True)


@st.composite
def seats(draw: st.DrawFn) -> SeatHolding:
    cards, high, low = draw(hands())
    wagers = draw(st.dictionaries(wager_names, st.integers(min_value=0, max_value=10**12),
                                  max_size=4))
    return SeatHolding(seat=draw(st.integers(min_value=1, max_value=999)), cards=cards,
                       high=high, low=low, wagers=wagers)


@st.composite
def rounds(draw: st.DrawFn) -> PaiGowRound:
    cards, high, low = draw(hands())
    return PaiGowRound(
        round_id=draw(round_ids),
        game=draw(st.from_regex(r"[a-z][a-z0-9_]{0,15}", fullmatch=True)),
        dealer=HandHolding(cards=cards, high=high, low=low),
        seats=tuple(draw(st.lists(seats(), max_size=7))),
    )


@given(rounds())
def test_parse_render_round_trip(rnd: PaiGowRound) -> None:
    line = render_round(rnd)
    assert "\n" not in line
    assert parse_round(line) == rnd
    assert render_round(parse_round(line)) == line
