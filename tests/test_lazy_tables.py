"""The rules engine's lookup tables filled one key at a time (replay/games/lazy_table.py) give,
for every key, what the tables built whole give (they are filled lazily because building them
whole cost every replay process about 0.7 s of CPU). Exhaustive: every key of the 5-card tables
under each wheel option and of the 7-card class tables, in an order unlike the build's, on
fresh tables; keys no hand makes fail alike."""

from __future__ import annotations

import random

import pytest

from replay.games import poker_ranks, seven_card_classes
from replay.games.lazy_table import LazyTable
from replay.rulesets import Wheel


def _shuffled(keys: object) -> list[int]:
    out = list(keys)  # type: ignore[call-overload]
    random.Random(6).shuffle(out)
    return out


@pytest.mark.parametrize("wheel", list(Wheel))
def test_5_card_ranks_filled_on_use_equal_the_whole_tables_for_every_key(wheel: Wheel) -> None:
    whole = poker_ranks.complete_rank_tables(wheel)
    lazy = poker_ranks._lazy_tables(wheel)
    assert len(lazy.unsuited) == 0 and len(lazy.suited) == 0
    for key in _shuffled(whole.unsuited):
        got, want = lazy.unsuited[key], whole.unsuited[key]
        assert (got.key, got.category, got.ranks) == (want.key, want.category, want.ranks)
    assert dict(lazy.unsuited) == dict(whole.unsuited)
    for mask in _shuffled(range(2 * poker_ranks.JOKER_RANK_BIT)):
        got_s, want_s = lazy.suited[mask], whole.suited[mask]
        if want_s is None:
            assert got_s is None, mask
        else:
            assert got_s is not None
            assert (got_s.key, got_s.category, got_s.ranks) == (
                want_s.key, want_s.category, want_s.ranks)
    assert len(whole.suited) == 2 * poker_ranks.JOKER_RANK_BIT
    # each distinct rank is one object, as in the whole tables
    ranks = [*lazy.unsuited.values(), *(r for r in lazy.suited.values() if r is not None)]
    assert len({id(r) for r in ranks}) == len({r.key for r in ranks})


def test_5_card_keys_no_hand_makes_are_not_keys() -> None:
    whole = poker_ranks.complete_rank_tables(Wheel.SECOND_HIGHEST)
    lazy = poker_ranks._lazy_tables(Wheel.SECOND_HIGHEST)
    two, three, joker = 2, 3, 43
    bad = [0, -6, 1, two**5, two**3 * joker**2, two**6, two**4 * three * 47,
           two * three * 5 * 7, two**2 * three**2 * 5 * 7, 47 * 53 * 59 * 61 * 67]
    for key in bad:
        assert key not in whole.unsuited
        with pytest.raises(KeyError):
            lazy.unsuited[key]
    for mask in (-1, 2 * poker_ranks.JOKER_RANK_BIT, 1 << 20):
        with pytest.raises(KeyError):
            lazy.suited[mask]
    with pytest.raises(KeyError):
        lazy.unsuited["2"]  # type: ignore[index]
    assert len(lazy.unsuited) == 0


def test_7_card_classes_filled_on_use_equal_the_whole_tables_for_every_key() -> None:
    whole = seven_card_classes._build_tables()
    lazy = seven_card_classes._lazy_tables()
    for name in ("unsuited", "suited", "four_of_a_suit"):
        table, reference = getattr(lazy, name), getattr(whole, name)
        assert len(table) == 0
        for key in _shuffled(reference):
            assert table[key] == reference[key], (name, key)
        assert dict(table) == dict(reference), name
    assert len(whole.suited) == 2 << 13
    assert len(whole.four_of_a_suit) == 7 * 0x1111 + 1


def test_7_card_keys_no_hand_makes_are_not_keys() -> None:
    whole = seven_card_classes._build_tables()
    lazy = seven_card_classes._lazy_tables()
    bad = [0, -1, 1, 2**7, 2**5 * 3 * 5, 2**4 * 43**2 * 3, 2**6, 2**3 * 3**3 * 5 * 47,
           2**8]
    for key in bad:
        assert key not in whole.unsuited
        with pytest.raises(KeyError):
            lazy.unsuited[key]
    for key in (-1, 2 << 13):
        with pytest.raises(KeyError):
            lazy.suited[key]
    for key in (-1, 7 * 0x1111 + 1):
        with pytest.raises(KeyError):
            lazy.four_of_a_suit[key]


def test_a_lazy_table_keeps_what_it_worked_out_and_asks_once() -> None:
    asked: list[int] = []

    def fill(key: int) -> int:
        asked.append(key)
        if key < 0:
            raise KeyError(key)
        return key * 2

    table = LazyTable(fill)
    assert table[3] == 6 and table[3] == 6 and asked == [3]
    with pytest.raises(KeyError):
        table[-1]
    assert -1 not in table and asked == [3, -1]
    with pytest.raises(KeyError):
        table[1.0]  # type: ignore[index]
    assert asked == [3, -1]
