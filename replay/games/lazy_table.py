"""A lookup table filled one key at a time, on first use of the key.

The rules engine's 5-card and 7-card tables (replay/games/poker_ranks.py,
replay/games/seven_card_classes.py) were built whole on first use, about 0.7 s of CPU in
every process that judges, though a shift looks up only a part of them. To keep replay
fast, a :class:`LazyTable` holds what was asked for: a key not yet held is worked out by the
table's ``fill`` function (the same function the whole table is built with, so the answer
is the same; tests compare every key with the whole table) and kept. A key the whole table
does not hold makes ``fill`` raise KeyError, as the whole table would. Looking up a key
already held costs what a dict lookup costs. Nothing here does I/O.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

_V = TypeVar("_V")


class LazyTable(dict[int, _V]):
    """A dict of int keys whose missing keys are filled by ``fill(key)`` (and kept);
    ``fill`` raises KeyError for a key the table does not have."""

    __slots__ = ("_fill",)

    def __init__(self, fill: Callable[[int], _V]) -> None:
        super().__init__()
        self._fill = fill

    def __missing__(self, key: int) -> _V:
        if type(key) is not int:
            raise KeyError(key)
        value = self._fill(key)
        self[key] = value
        return value
