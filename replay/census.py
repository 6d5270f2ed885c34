"""The census: every hand of 5, 6 or 7 cards from a game's deck, counted by the category of
its best five cards (docs/rules.md 1.1, 5, 6a.3).

``python -m replay census --game pai_gow_poker --cards 7`` prints :func:`census`. Every hand
is enumerated and ranked; nothing is counted by formula. The hands are enumerated by
splitting each one at its fifth-last card in deck order: a *prefix* of ``cards - 5`` cards
(none, one or two) and a *suffix* of five cards after it. The suffixes starting at a deck
position are ranked once, as arrays (their rank multiset, suit counters and suit masks; see
:mod:`replay.games.fast_eval`), and every prefix that ends just before that position is
combined with all of them by one table lookup per hand: a table from (prefix multiset,
suffix multiset) to the category of the best five cards without a flush, and, for the few
hands whose suit counters reach five, the flush table of the joined suit mask. So each of the
154,143,080 seven-card hands of the 53-card deck costs two array operations (a lookup and a
count), with a third for the flush hands.

The category of a hand is the category of the best of its five-card hands by
:func:`replay.games.poker_ranks.rank_high` (its tables are derived from ``rank_high``).
Categories do not depend on the wheel option (6a.4 moves the wheel only within its
category), so one table serves both games.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from itertools import combinations
from math import comb
from types import MappingProxyType

import numpy as np
import numpy.typing as npt

from replay.cards import DECK_52, DECK_53, Card
from replay.errors import HandError, UnknownGameError
from replay.games.fast_eval import (
    FLUSH_MASK,
    MAX_HAND,
    MIN_HAND,
    RANK_CODES,
    SUIT_COUNTERS,
    SUIT_MASKS,
    Tables,
    evaluator,
    flush_fields,
    has_flush,
)
from replay.games.poker_ranks import HandCategory

CENSUS_DECKS: Mapping[str, tuple[Card, ...]] = MappingProxyType({
    "pai_gow_poker": DECK_53,
    "caribbean_stud": DECK_52,
})
"""The deck each game's census counts (pai gow poker's 53 cards with the joker,
docs/rules.md 1.1; Caribbean stud's 52 cards, 4.2)."""

CATEGORIES: tuple[HandCategory, ...] = tuple(HandCategory)
"""Census keys in output order: five aces first, high card last (docs/rules.md 1.1)."""

Progress = Callable[[int, int], None]
"""Called now and then with (hands counted so far, hands in all)."""

_NO_CATEGORY = 255


def census(game: str, cards: int, progress: Progress | None = None) -> dict[str, int]:
    """The count of every hand of ``cards`` cards from ``game``'s deck by category, plus
    ``total``: keys in the order of :data:`CATEGORIES`, then ``total``.

    A category no hand of the deck makes is left out (the count is exhaustive, so a zero
    means the deck cannot make it: five aces without the joker). ``progress`` is called
    with (hands counted, hands in all) as the count goes.
    """
    deck = CENSUS_DECKS.get(game)
    if deck is None:
        raise UnknownGameError(
            f"no census for game {game!r}; known: {', '.join(sorted(CENSUS_DECKS))}"
        )
    counts = census_of_deck(deck, cards, progress=progress)
    out = {category.value: counts[category] for category in CATEGORIES if counts[category]}
    out["total"] = sum(counts.values())
    return out


def census_of_deck(
    deck: Sequence[Card], cards: int, *, progress: Progress | None = None
) -> dict[HandCategory, int]:
    """The count of every hand of ``cards`` cards (5, 6 or 7) from ``deck`` (any different
    cards of the 53-card deck, e.g. a sub-deck for cross-checking) by the category of its
    best five cards (docs/rules.md 1.1, 6a.3). Every category is a key, zero included."""
    if type(cards) is not int or not MIN_HAND <= cards <= MAX_HAND:
        raise HandError(f"a census counts hands of 5 to 7 cards, not {cards!r}")
    indexes = [card.index for card in deck]
    if len(set(indexes)) != len(indexes):
        raise HandError("a census deck must hold different cards")
    if len(indexes) < cards:
        raise HandError(f"a deck of {len(indexes)} cards holds no hand of {cards}")
    counts = _Count(evaluator().tables, np.array(indexes, dtype=np.intp), cards).run(progress)
    return {category: int(counts[category.strength]) for category in CATEGORIES}


def _colex(n: int, k: int) -> npt.NDArray[np.uint8]:
    """All k-subsets of range(n) (n <= 53, a deck) in colex order (by largest element, then
    the next...), so that the subsets of range(m) are the first comb(m, k) rows."""
    rows = np.zeros((1, 0), dtype=np.uint8)
    for size in range(1, k + 1):
        parts = [
            np.column_stack([rows[: comb(top, size - 1)],
                             np.full(comb(top, size - 1), top, dtype=np.uint8)])
            for top in range(size - 1, n)
        ]
        rows = np.concatenate(parts) if parts else np.zeros((0, size), dtype=np.uint8)
    return rows


class _Count:
    """One census run: the deck's per-card codes and the combining tables."""

    def __init__(self, tables: Tables, cards: npt.NDArray[np.intp], size: int) -> None:
        self.tables = tables
        self.size = size
        self.prefix = size - MIN_HAND
        self.n = len(cards)
        self.rank_code = RANK_CODES[cards]
        self.counter = SUIT_COUNTERS[cards]
        self.mask = SUIT_MASKS[cards]
        self.levels = tables.levels
        self.suffix_combos = _colex(self.n, MIN_HAND)
        self.flush_strength = tables.strength(tables.flush)
        # For each prefix multiset, the category (strength) of the best non-flush five of
        # prefix + suffix, per suffix multiset; 255 where the union is no hand.
        five = self.levels[MIN_HAND]
        joined = self.levels[size]
        best = tables.nonflush[size]
        self.combine = np.full((len(self.levels[self.prefix]), len(five)), _NO_CATEGORY,
                               dtype=np.uint8)
        for row, code in enumerate(self.levels[self.prefix].tolist()):
            union = five + code
            pos = np.minimum(np.searchsorted(joined, union), len(joined) - 1)
            found = joined[pos] == union
            self.combine[row, found] = tables.strength(best[pos[found]])
        self.counts = np.zeros(_NO_CATEGORY + 1, dtype=np.int64)

    def _suffixes(self, start: int) -> tuple[npt.NDArray[np.intp], npt.NDArray[np.uint16],
                                             npt.NDArray[np.uint64]]:
        """Multiset state, suit counters and suit masks of every five cards at deck
        positions ``start`` and after (summed a column at a time, to keep memory low)."""
        combos = self.suffix_combos[: comb(self.n - start, MIN_HAND)]
        code = np.zeros(len(combos), dtype=np.int64)
        counter = np.zeros(len(combos), dtype=np.uint16)
        mask = np.zeros(len(combos), dtype=np.uint64)
        for j in range(MIN_HAND):
            column = combos[:, j] + start
            code += self.rank_code[column]
            counter += self.counter[column]
            mask += self.mask[column]
        state = np.searchsorted(self.levels[MIN_HAND], code)
        return state, counter, mask

    def _add(self, state: npt.NDArray[np.intp], counter: npt.NDArray[np.uint16],
             mask: npt.NDArray[np.uint64], prefix: Sequence[int],
             flush_rows: dict[int, tuple[npt.NDArray[np.intp], npt.NDArray[np.uint64]]]
             ) -> None:
        """Count every hand made of the cards at deck positions ``prefix`` and one of the
        suffixes."""
        code = int(self.rank_code[list(prefix)].sum()) if prefix else 0
        row = int(np.searchsorted(self.levels[self.prefix], code))
        categories = self.combine[row][state]
        self.counts += np.bincount(categories, minlength=_NO_CATEGORY + 1)
        pc = int(self.counter[list(prefix)].sum()) if prefix else 0
        found = flush_rows.get(pc)
        if found is None:
            joined = counter + np.uint16(pc)
            rows = np.flatnonzero(has_flush(joined))
            found = flush_rows[pc] = (rows, flush_fields(joined[rows]))
        rows, shifts = found
        if rows.size:
            pm = np.uint64(int(self.mask[list(prefix)].sum()) if prefix else 0)
            fields = ((mask[rows] + pm) >> shifts) & np.uint64(FLUSH_MASK)
            plain = categories[rows]
            best = np.maximum(plain, self.flush_strength[fields.astype(np.intp)])
            self.counts += np.bincount(best, minlength=_NO_CATEGORY + 1)
            self.counts -= np.bincount(plain, minlength=_NO_CATEGORY + 1)

    def run(self, progress: Progress | None) -> npt.NDArray[np.int64]:
        total = comb(self.n, self.size)
        done = 0
        if self.prefix == 0:
            self._add(*self._suffixes(0), (), {})
        else:
            for last in range(self.prefix - 1, self.n - MIN_HAND):
                suffixes = self._suffixes(last + 1)
                flush_rows: dict[int, tuple[npt.NDArray[np.intp], npt.NDArray[np.uint64]]] = {}
                for firsts in combinations(range(last), self.prefix - 1):
                    self._add(*suffixes, (*firsts, last), flush_rows)
                    done += len(suffixes[0])
                if progress is not None:
                    progress(done, total)
        counted = int(self.counts.sum())
        if counted != total or self.counts[len(CATEGORIES):].any():
            raise HandError(f"census counted {counted} hands of {total}")
        if progress is not None and self.prefix == 0:
            progress(total, total)
        return self.counts
