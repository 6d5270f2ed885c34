"""Cards and their notation (docs/rules.md 1.1; the notation round-trips: parse(render(x)) == x)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from replay.cards import (
    DECK_52,
    DECK_53,
    JOKER,
    Card,
    Rank,
    Suit,
    parse_card,
    parse_cards,
    render_cards,
)
from replay.errors import CardError, ReplayError

RANK_CHARS = "23456789TJQKA"
SUIT_CHARS = "cdhs"
ALL_TOKENS = [r + s for r in RANK_CHARS for s in SUIT_CHARS] + ["Jk"]


def test_every_token_parses_and_renders_back() -> None:
    cards = [parse_card(token) for token in ALL_TOKENS]
    assert [str(card) for card in cards] == ALL_TOKENS
    assert len(set(cards)) == 53


def test_tokens_mean_their_rank_and_suit() -> None:
    assert parse_card("As") == Card(rank=Rank.ACE, suit=Suit.SPADES)
    assert parse_card("Td") == Card(rank=Rank.TEN, suit=Suit.DIAMONDS)
    assert parse_card("2c") == Card(rank=Rank.TWO, suit=Suit.CLUBS)
    assert parse_card("Jh") == Card(rank=Rank.JACK, suit=Suit.HEARTS)
    assert parse_card("Jk") is JOKER
    assert JOKER.is_joker and not parse_card("Jh").is_joker
    assert str(JOKER) == "Jk"


def test_space_separated_and_concatenated_forms_are_the_same_cards() -> None:
    expected = (parse_card("As"), parse_card("Kd"), JOKER)
    assert parse_cards("As Kd Jk") == expected
    assert parse_cards("AsKdJk") == expected
    assert parse_cards("AsKd Jk") == expected
    assert parse_cards("") == ()


def test_render_cards_is_space_separated() -> None:
    assert render_cards((parse_card("As"), parse_card("Kd"), JOKER)) == "As Kd Jk"
    assert render_cards((parse_card("As"), JOKER), sep="") == "AsJk"
    assert render_cards(()) == ""


def test_parsing_is_notation_only_a_repeated_card_parses() -> None:
    assert parse_cards("AsAs") == (parse_card("As"), parse_card("As"))


def test_deck_53_is_52_cards_then_the_joker_in_documented_order() -> None:
    assert len(DECK_53) == 53 and len(set(DECK_53)) == 53
    assert DECK_53[:52] == DECK_52 and DECK_53[52] is JOKER
    assert JOKER not in DECK_52
    assert render_cards(DECK_52[:13], sep="") == "".join(r + "c" for r in RANK_CHARS)
    assert str(DECK_52[13]) == "2d" and str(DECK_52[26]) == "2h" and str(DECK_52[51]) == "As"
    assert [card.index for card in DECK_53] == list(range(53))


def test_equal_cards_hash_equal_and_index_is_not_part_of_equality() -> None:
    built = Card(rank=Rank.ACE, suit=Suit.SPADES)
    assert built == parse_card("As") and hash(built) == hash(parse_card("As"))
    assert {built: 1}[parse_card("As")] == 1
    assert built.index == 51


def test_repr_names_the_card() -> None:
    assert "As" in repr(parse_card("As"))


@pytest.mark.parametrize(
    ("text", "token", "position"),
    [
        ("AsXxJk", "'Xx'", "position 2"),
        ("As Xx Jk", "'Xx'", "position 3"),
        ("AsK", "'K'", "position 2"),
        ("as", "'as'", "position 0"),
        ("10s", "'10'", "position 0"),
        ("JK", "'JK'", "position 0"),
        ("Ks 1c", "'1c'", "position 3"),
    ],
)
def test_bad_token_is_named_with_its_position(text: str, token: str, position: str) -> None:
    with pytest.raises(CardError) as info:
        parse_cards(text)
    assert token in str(info.value) and position in str(info.value)
    assert text in str(info.value)


def test_card_error_is_a_value_error_and_a_replay_error() -> None:
    with pytest.raises(ValueError):
        parse_card("Zz")
    with pytest.raises(ReplayError, match="'Zz'"):
        parse_card("Zz")


def test_parse_card_takes_exactly_one_token() -> None:
    with pytest.raises(CardError, match="'AsKd'"):
        parse_card("AsKd")


@pytest.mark.parametrize(
    ("rank", "suit"),
    [(Rank.JOKER, Suit.SPADES), (Rank.ACE, Suit.JOKER), (14, Suit.SPADES), (Rank.ACE, "s")],
)
def test_card_rejects_inconsistent_or_untyped_values(rank: object, suit: object) -> None:
    with pytest.raises(CardError):
        Card(rank=rank, suit=suit)  # type: ignore[arg-type]


def test_render_rejects_a_non_card() -> None:
    with pytest.raises(CardError, match="'As'"):
        render_cards(["As"])  # type: ignore[list-item]


@given(st.lists(st.sampled_from(DECK_53), max_size=12))
def test_round_trip_both_forms(cards: list[Card]) -> None:
    assert parse_cards(render_cards(cards)) == tuple(cards)
    assert parse_cards(render_cards(cards, sep="")) == tuple(cards)
