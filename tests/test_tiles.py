"""Pai gow tiles and their notation (docs/rules.md 3.2, 6a.15; parse(render(x)) == x)."""

from __future__ import annotations

import re
from collections import Counter

import pytest
from hypothesis import given
from hypothesis import strategies as st

from replay.errors import ReplayError
from replay.tiles import (
    COPIES,
    FACES,
    TILES_32,
    Tile,
    TileError,
    parse_tile,
    parse_tiles,
    render_tiles,
)

# docs/rules.md 3.2, typed from its lists: two each of 11 tiles, one each of 10 tiles
# (written there as 6-3, 5-4, ...; the notation puts the smaller pip first).
DOUBLED = ["6-6", "1-1", "4-4", "1-3", "5-5", "3-3", "2-2", "5-6", "4-6", "1-6", "1-5"]
SINGLE = ["3-6", "4-5", "2-6", "3-5", "3-4", "2-5", "1-4", "2-3", "1-2", "2-4"]


def test_every_face_token_parses_and_renders_back() -> None:
    tokens = [f"{low}-{high}" for low in range(1, 7) for high in range(low, 7)]
    assert len(tokens) == 21  # every face two dice can show: 6 doubles + C(6, 2) = 15
    tiles = [parse_tile(token) for token in tokens]
    assert [str(tile) for tile in tiles] == tokens
    assert set(tiles) == set(FACES) and len(FACES) == 21


def test_3_2_the_set_holds_two_each_of_11_faces_and_one_each_of_10() -> None:
    counts = Counter(str(tile) for tile in TILES_32)
    assert len(TILES_32) == 32  # 2 * 11 + 10
    assert counts == Counter({t: 2 for t in DOUBLED} | {t: 1 for t in SINGLE})
    assert {str(t): n for t, n in COPIES.items()} == dict(counts)
    assert all(parse_tile(t).copies == 2 for t in DOUBLED)
    assert all(parse_tile(t).copies == 1 for t in SINGLE)


def test_6a_15_fixed_order_is_the_single_tile_order_highest_first() -> None:
    assert render_tiles(FACES) == (
        "6-6 1-1 4-4 1-3 5-5 3-3 2-2 5-6 4-6 1-6 1-5 3-6 4-5 2-6 3-5 3-4 2-5 1-4 2-3 2-4 1-2"
    )
    assert render_tiles(TILES_32[:4]) == "6-6 6-6 1-1 1-1"
    assert render_tiles(TILES_32[-10:]) == "3-6 4-5 2-6 3-5 3-4 2-5 1-4 2-3 2-4 1-2"
    assert [tile.index for tile in FACES] == list(range(21))


@pytest.mark.parametrize(
    ("token", "name"),
    [("6-6", "Teen"), ("1-1", "Day"), ("4-4", "Yun"), ("1-3", "Gor"), ("5-5", "Mooy"),
     ("3-3", "Chong"), ("2-2", "Bon"), ("5-6", "Foo"), ("4-6", "Ping"), ("1-6", "Tit"),
     ("1-5", "Look"), ("3-6", "mixed nine"), ("4-5", "mixed nine"), ("2-6", "mixed eight"),
     ("3-5", "mixed eight"), ("3-4", "mixed seven"), ("2-5", "mixed seven"),
     ("1-4", "mixed five"), ("2-3", "mixed five"), ("2-4", "Gee Joon"), ("1-2", "Gee Joon")],
)
def test_3_2_tile_names(token: str, name: str) -> None:
    assert parse_tile(token).name == name


def test_glossary_gee_joon_is_the_1_2_and_the_2_4() -> None:
    assert {str(t) for t in FACES if t.is_gee_joon} == {"1-2", "2-4"}


def test_pips_are_the_spots_on_the_tile() -> None:
    assert parse_tile("6-6").pips == 12
    assert parse_tile("1-1").pips == 2
    assert parse_tile("4-5").pips == 9
    assert parse_tile("1-2").pips == 3


def test_a_tile_is_a_face_the_two_copies_are_equal() -> None:
    assert Tile(low=6, high=6) == parse_tile("6-6")
    assert TILES_32[0] == TILES_32[1]
    assert len(set(TILES_32)) == 21
    assert repr(parse_tile("2-4")) == "parse_tile('2-4')"


def test_larger_pip_first_is_refused_with_the_right_spelling() -> None:
    with pytest.raises(TileError, match=r"'4-2'.*smaller pip first, '2-4'"):
        parse_tile("4-2")
    with pytest.raises(TileError, match="smaller pip first: 2-4, not 4-2"):
        Tile(low=4, high=2)


@pytest.mark.parametrize("token", ["7-1", "0-0", "66", "6-6-6", "", " 6-6", "6 - 6", "a-b",
                                   "\uff16-\uff16", 66, None])
def test_bad_tile_tokens_are_named(token: object) -> None:
    with pytest.raises(TileError, match=re.escape(f"bad tile token {token!r}")):
        parse_tile(token)  # type: ignore[arg-type]


@pytest.mark.parametrize(("low", "high"), [(0, 1), (1, 7), (True, 2), (1.0, 2), ("1", 2)])
def test_tile_pips_must_be_integers_from_1_to_6(low: object, high: object) -> None:
    with pytest.raises(TileError, match="pip must be an integer from 1 to 6"):
        Tile(low=low, high=high)  # type: ignore[arg-type]


def test_parse_tiles_reads_space_separated_tokens() -> None:
    assert parse_tiles("6-6 4-5  1-2\t2-4") == (
        parse_tile("6-6"), parse_tile("4-5"), parse_tile("1-2"), parse_tile("2-4"))
    assert parse_tiles("") == ()


def test_parse_tiles_names_the_bad_token_and_its_number() -> None:
    with pytest.raises(TileError, match=r"'6-7'.*tile 2 of '6-6 6-7 1-2'"):
        parse_tiles("6-6 6-7 1-2")
    with pytest.raises(TileError, match="must be given as text"):
        parse_tiles(["6-6"])  # type: ignore[arg-type]


def test_parsing_is_notation_only_a_repeated_tile_parses() -> None:
    assert parse_tiles("3-6 3-6") == (parse_tile("3-6"), parse_tile("3-6"))


def test_render_refuses_what_is_not_a_tile() -> None:
    with pytest.raises(TileError, match="not a tile: '6-6'"):
        render_tiles(["6-6"])  # type: ignore[list-item]


def test_tile_error_is_a_replay_error_and_a_value_error() -> None:
    assert issubclass(TileError, ReplayError) and issubclass(TileError, ValueError)


@given(st.lists(st.sampled_from(TILES_32), max_size=12))
def test_render_then_parse_round_trips(tiles: list[Tile]) -> None:
    assert parse_tiles(render_tiles(tiles)) == tuple(tiles)
    assert render_tiles(parse_tiles(render_tiles(tiles))) == render_tiles(tiles)
