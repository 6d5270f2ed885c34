"""Fast paths for pai gow poker high-hand ranks: one 5-card hand, the best five of seven, and
numpy batches of hands (docs/rules.md 1.1, 6a.3, 6a.4).

Every answer is the ``key`` of :class:`~replay.games.poker_ranks.HighRank` that
:func:`~replay.games.poker_ranks.rank_high` gives (for five cards), or the largest of the
keys of the 21 five-card hands in seven cards (the best five of seven): same order, same
categories, equal keys exactly for copies. The tables are *derived from* ``rank_high``: each
distinct 5-card hand shape (a multiset of ranks, the joker a rank of its own, with or without
a common suit) is ranked once by ``rank_high`` on a representative hand, so the joker rules
(6a.3: an ace, or the absent card that completes a straight, flush, straight flush or royal
flush, whichever is best) and the wheel option (6a.4) are ``rank_high``'s, never restated.

How the fast paths find a hand's shape without sorting (the ideas of ``rank_high``'s prime
products and flush tables, widened to seven cards):

- a hand's *rank multiset* is the sum of one code per card, three bits per rank (a count of
  0..4; the joker has its own field), so the ranks of any number of cards add up to one
  integer, whatever their order;
- its *suit counts* are four 4-bit counters in the same sum; the joker adds one to each suit,
  since it may complete a flush of any suit. A hand holds a flush when some counter reaches
  five: adding 3 to every counter sets that counter's top bit;
- the cards of the flush suit, and the joker, are a 14-bit rank mask, found by summing a
  second code per card (one 16-bit field per suit).

Without a flush the best five of seven depends on the rank multiset alone (it is the best of
its 21 five-card sub-multisets ranked unsuited, prepared once per multiset); with one, it is
the better of that and the best five cards of the flush suit with the joker (prepared once per
rank mask). With seven cards at most one suit can reach five.

The numpy path walks the rank multiset as a state machine instead: one transition table
(state x rank -> state; the states are the 103,105 rank multisets of up to seven cards, the
table about 6 MB), so a batch costs one table lookup per card and column-wise arithmetic,
with no Python loop over hands. The census (``replay.census``) reuses the same tables.

Should the engine switch to these paths (``rank_high`` is about 0.6 us a hand on ``Card``
objects; ``key5`` about 0.18 us and ``key7`` about 0.3 us on card indexes, see
bench/README.md), note that the tables are built *from* ``rank_high``: ``poker_ranks``
would import this module lazily (inside the function that needs it) to avoid an import
cycle.

Cards are given by their index in :data:`~replay.cards.DECK_53` (``Card.index``: 0..51 the
natural cards suit by suit, 52 the joker). The unchecked functions (``key5``, ``key7`` of
:class:`FastEvaluator`) trust their input, as treys does, for speed; :func:`rank_five`,
:func:`best_of_seven` and :meth:`FastEvaluator.keys` check it and raise
:class:`~replay.errors.HandError` naming the bad value.

Tables are built on first use of each wheel option (about 0.3 s) and cached.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from itertools import combinations
from types import MappingProxyType
from typing import Any

import numpy as np
import numpy.typing as npt

from replay.cards import DECK_53, JOKER, Card, render_cards
from replay.errors import HandError
from replay.games.poker_ranks import HandCategory, HighRank, rank_high
from replay.ruleset_model import Wheel

I32 = npt.NDArray[np.int32]
I64 = npt.NDArray[np.int64]
U8 = npt.NDArray[np.uint8]
U16 = npt.NDArray[np.uint16]
U64 = npt.NDArray[np.uint64]

JOKER_INDEX = JOKER.index
"""The joker's card index (52)."""
SYMBOLS = 14
"""Rank symbols: 0..12 for the natural ranks two..ace, 13 for the joker."""
JOKER_SYMBOL = 13
MIN_HAND, MAX_HAND = 5, 7
"""Hand sizes the tables answer: five cards (a high hand) up to seven (a dealt hand)."""

_FIELD_BITS = 3
_RANK_FIELDS = (1 << (_FIELD_BITS * SYMBOLS)) - 1
_LIMIT = (4,) * 13 + (1,)
_SUIT_FIELD = 16
_MASK_BITS = (1 << SYMBOLS) - 1
_COUNTER_ADD = 0x3333
_COUNTER_TOP = 0x8888
_NO_KEY = -1


def _symbol(index: int) -> int:
    return JOKER_SYMBOL if index == JOKER_INDEX else index % 13


def _suit(index: int) -> int | None:
    return None if index == JOKER_INDEX else index // 13


_SYM = tuple(_symbol(i) for i in range(len(DECK_53)))
_RANK_CODE = tuple(1 << (_FIELD_BITS * s) for s in _SYM)
"""Per card: its rank multiset code (one count in its rank's 3-bit field)."""
_SUIT_COUNTER = tuple(
    0x1111 if _suit(i) is None else 1 << (4 * (_suit(i) or 0)) for i in range(len(DECK_53))
)
"""Per card: one in its suit's 4-bit counter; the joker one in every counter."""
_SUIT_MASK = tuple(
    sum(1 << (_SUIT_FIELD * s + JOKER_SYMBOL) for s in range(4))
    if _suit(i) is None else 1 << (_SUIT_FIELD * (_suit(i) or 0) + _SYM[i])
    for i in range(len(DECK_53))
)
"""Per card: its rank bit in its suit's 16-bit field; the joker's bit in every field."""
_COUNTER_SHIFT = _FIELD_BITS * SYMBOLS
"""Where the suit counters sit above the rank fields in a 7-card code (bits 42..57)."""
_SUIT_OF_TOP = MappingProxyType({1 << (4 * s): s for s in range(4)})


def _frozen(array: npt.NDArray[Any]) -> npt.NDArray[Any]:
    array.flags.writeable = False
    return array


RANK_SYMBOLS: npt.NDArray[np.intp] = _frozen(np.array(_SYM, dtype=np.intp))
"""Per card index, its rank symbol (0 two .. 12 ace, 13 the joker)."""
RANK_CODES: I64 = _frozen(np.array(_RANK_CODE, dtype=np.int64))
"""Per card index, its rank multiset code: the codes of any cards add up to the code of
their ranks (a 3-bit count per rank symbol), which indexes :attr:`Tables.levels`."""
SUIT_COUNTERS: U16 = _frozen(np.array(_SUIT_COUNTER, dtype=np.uint16))
"""Per card index, its suit counter (one in its suit's 4-bit counter, the joker one in
each): summed over a hand, see :func:`has_flush` and :func:`flush_fields`."""
SUIT_MASKS: U64 = _frozen(np.array(_SUIT_MASK, dtype=np.uint64))
"""Per card index, its bit in its suit's 16-bit field (the joker bit 13 of every field):
summed over a hand of different cards, each field is that suit's 14-bit rank mask with the
joker, which indexes :attr:`Tables.flush`; two equal cards make the sum differ from the OR."""
FLUSH_MASK = (1 << SYMBOLS) - 1
"""The 14 bits of one suit's field in a :data:`SUIT_MASKS` sum."""
_SHIFT_OF_TOP = np.zeros((_COUNTER_TOP >> 3) + 1, dtype=np.uint64)
for _top, _s in _SUIT_OF_TOP.items():
    _SHIFT_OF_TOP[_top] = _SUIT_FIELD * _s
_frozen(_SHIFT_OF_TOP)


def has_flush(counters: U16) -> npt.NDArray[np.bool_]:
    """True where some suit counter of a :data:`SUIT_COUNTERS` sum holds five or more cards
    (docs/rules.md 6a.3: the joker completes a flush of any suit). Adding 3 to each 4-bit
    counter sets its top bit exactly when it holds five or more."""
    top: U16 = (counters + np.uint16(_COUNTER_ADD)) & np.uint16(_COUNTER_TOP)
    found: npt.NDArray[np.bool_] = top != 0
    return found


def flush_fields(counters: U16) -> U64:
    """For :data:`SUIT_COUNTERS` sums of at most seven cards, the bit shift of the field of
    the suit holding five or more cards in a :data:`SUIT_MASKS` sum (at most one suit can);
    0 for rows without one (tell them apart with :func:`has_flush`)."""
    top: U16 = (counters + np.uint16(_COUNTER_ADD)) & np.uint16(_COUNTER_TOP)
    shifts: U64 = _SHIFT_OF_TOP[top >> 3]
    return shifts


def category_of(key: int, *, wheel: Wheel = Wheel.SECOND_HIGHEST) -> HandCategory:
    """The category of a high-hand key (the ``category`` of its :class:`HighRank`)."""
    return evaluator(wheel).high_ranks[key].category


# ---------------------------------------------------------------------------------------
# Table building
# ---------------------------------------------------------------------------------------


def _representative(counts: Sequence[int], *, suited: bool) -> list[Card]:
    """Cards with these rank counts: of one suit (clubs) when ``suited``, else with suits
    dealt round-robin so that five cards never share one (a rank has at most four copies, so
    the copies of a rank, being adjacent, always get different suits)."""
    cards: list[Card] = []
    dealt = 0
    for symbol, count in enumerate(counts):
        for _ in range(count):
            if symbol == JOKER_SYMBOL:
                cards.append(JOKER)
            else:
                suit = 0 if suited else dealt % 4
                cards.append(DECK_53[suit * 13 + symbol])
                dealt += 1
    return cards


def _decode(code: int) -> list[int]:
    return [(code >> (_FIELD_BITS * s)) & 7 for s in range(SYMBOLS)]


def _levels() -> list[I64]:
    """The rank multiset codes of 0..7 cards (at most four of a rank, one joker), sorted."""
    weights = np.array([1 << (_FIELD_BITS * s) for s in range(SYMBOLS)], dtype=np.int64)
    levels = [np.zeros(1, dtype=np.int64)]
    for _ in range(MAX_HAND):
        prev = levels[-1]
        grown = [
            prev[((prev >> (_FIELD_BITS * s)) & 7) < _LIMIT[s]] + weights[s]
            for s in range(SYMBOLS)
        ]
        levels.append(np.unique(np.concatenate(grown)))
    return levels


def _find(sorted_codes: I64, codes: I64) -> tuple[npt.NDArray[np.intp], npt.NDArray[np.bool_]]:
    """Positions of ``codes`` in ``sorted_codes``, and which were found."""
    pos = np.searchsorted(sorted_codes, codes)
    pos = np.minimum(pos, len(sorted_codes) - 1)
    return pos, sorted_codes[pos] == codes


def _best_of_subsets(levels: list[I64], values5: I64) -> dict[int, I64]:
    """Best key of each multiset of 5, 6 and 7 cards: the best over its multisets one card
    smaller (so, inductively, over all of its five-card sub-multisets)."""
    values = {5: values5}
    for size in (6, 7):
        codes, below = levels[size], levels[size - 1]
        best = np.full(len(codes), _NO_KEY, dtype=np.int64)
        for s in range(SYMBOLS):
            has = ((codes >> (_FIELD_BITS * s)) & 7) > 0
            pos, found = _find(below, codes[has] - (1 << (_FIELD_BITS * s)))
            assert found.all()
            best[has] = np.maximum(best[has], values[size - 1][pos])
        values[size] = best
    return values


def _flush_table(suited5: dict[int, int]) -> I64:
    """Best suited key by 14-bit rank mask (bit 13 the joker) for masks of five to seven
    bits: the best of its five-bit sub-masks; other masks have no flush (-1)."""
    table = np.full(1 << SYMBOLS, _NO_KEY, dtype=np.int64)
    for mask, key in suited5.items():
        table[mask] = key
    masks = np.arange(1 << SYMBOLS, dtype=np.int64)
    popcount = np.zeros(len(masks), dtype=np.int64)
    for b in range(SYMBOLS):
        popcount += (masks >> b) & 1
    for size in (6, 7):
        rows = masks[popcount == size]
        best = np.full(len(rows), _NO_KEY, dtype=np.int64)
        for b in range(SYMBOLS):
            has = (rows >> b) & 1 == 1
            best[has] = np.maximum(best[has], table[rows[has] ^ (1 << b)])
        table[rows] = best
    return table


@dataclass(frozen=True, slots=True, kw_only=True)
class Tables:
    """Everything the fast paths look up, for one wheel option (all derived from
    ``rank_high``; see the module docstring).

    - ``levels[k]``: the sorted rank multiset codes of ``k`` cards (k = 0..7);
    - ``nonflush[k]`` (k = 5..7): per code of ``levels[k]``, the best key of its five-card
      sub-multisets ranked as if unsuited;
    - ``flush``: per 14-bit suited rank mask (bit 13 the joker), the best suited key of its
      five-card subsets (-1 below five bits);
    - ``transitions``: the state machine, ``transitions[state * 14 + symbol]``; states are
      the codes of levels 0..7 in order (``offsets[k]`` is level k's first state) plus a
      final sink state for impossible hands; ``state_keys[k]`` is the best key per state
      for a hand of k cards (-1 elsewhere);
    - ``sorted_keys``/``key_strength``: every key there is, sorted, with its category's
      strength (0 high card .. 10 five aces), for mapping keys to categories in bulk;
    - ``high_ranks``: each key's :class:`HighRank`.
    """

    wheel: Wheel
    levels: tuple[I64, ...]
    nonflush: Mapping[int, I64]
    flush: I64
    transitions: I32
    offsets: tuple[int, ...]
    state_keys: Mapping[int, I64]
    sorted_keys: I64
    key_strength: U8
    high_ranks: Mapping[int, HighRank]

    def strength(self, keys: npt.ArrayLike) -> U8:
        """Category strength (0 high card .. 10 five aces) of each key (-1 gives 255)."""
        k = np.asarray(keys, dtype=np.int64)
        pos, found = _find(self.sorted_keys, k)
        return np.where(found, self.key_strength[pos], 255).astype(np.uint8)


def _build_tables(wheel: Wheel) -> Tables:
    levels = _levels()
    high_ranks: dict[int, HighRank] = {}

    def key_of(cards: Sequence[Card]) -> int:
        hr = rank_high(cards, wheel=wheel)
        high_ranks.setdefault(hr.key, hr)
        return hr.key

    values5 = np.array([key_of(_representative(_decode(int(code)), suited=False))
                        for code in levels[5]], dtype=np.int64)
    suited5: dict[int, int] = {}
    for ranks in (*combinations(range(13), 5),
                  *((*four, JOKER_SYMBOL) for four in combinations(range(13), 4))):
        counts = [1 if s in ranks else 0 for s in range(SYMBOLS)]
        suited5[sum(1 << s for s in ranks)] = key_of(_representative(counts, suited=True))
    nonflush = _best_of_subsets(levels, values5)
    flush = _flush_table(suited5)

    offsets = [0]
    for codes in levels:
        offsets.append(offsets[-1] + len(codes))
    sink = offsets[-1]
    transitions = np.full((sink + 1) * SYMBOLS, sink, dtype=np.int32)
    for size in range(MAX_HAND):
        codes = levels[size]
        for s in range(SYMBOLS):
            room = ((codes >> (_FIELD_BITS * s)) & 7) < _LIMIT[s]
            pos, found = _find(levels[size + 1], codes[room] + (1 << (_FIELD_BITS * s)))
            assert found.all()
            states = offsets[size] + np.flatnonzero(room)
            transitions[states * SYMBOLS + s] = offsets[size + 1] + pos
    state_keys = {}
    for size in range(MIN_HAND, MAX_HAND + 1):
        keys = np.full(sink + 1, _NO_KEY, dtype=np.int64)
        keys[offsets[size]: offsets[size + 1]] = nonflush[size]
        state_keys[size] = keys

    sorted_keys = np.array(sorted(high_ranks), dtype=np.int64)
    key_strength = np.array([high_ranks[int(k)].category.strength for k in sorted_keys],
                            dtype=np.uint8)
    for array in (*levels, *nonflush.values(), *state_keys.values()):
        _frozen(array)
    for other in (flush, transitions, sorted_keys, key_strength):
        _frozen(other)
    return Tables(
        wheel=wheel, levels=tuple(levels), nonflush=MappingProxyType(nonflush), flush=flush,
        transitions=transitions, offsets=tuple(offsets),
        state_keys=MappingProxyType(state_keys), sorted_keys=sorted_keys,
        key_strength=key_strength, high_ranks=MappingProxyType(high_ranks),
    )


# ---------------------------------------------------------------------------------------
# The evaluators
# ---------------------------------------------------------------------------------------

Key5 = Callable[[Sequence[int]], int]
Key7 = Callable[[Sequence[int]], int]


_KEY5_WEIGHTS = (1, 2, 6, 23, 95, 313, 993, 2423, 5625, 12523, 19999, 43259, 79416, 130286)
"""Per rank symbol, a weight such that any five cards (at most four of a rank, one joker)
have a different sum of weights (chosen greedily, smallest first; :func:`_make_key5` checks
it). The sum stays below 2**19, so the 5-card path works on one-digit Python ints."""
_KEY5_SUM_BITS = 20


def _make_key5(tables: Tables) -> Key5:
    # One small int per card: its rank weight in bits 0..19, its suit as a bit in 20..23
    # (the joker all four). The AND of five cards' suit bits is non-zero exactly when they
    # share a suit (the joker sharing any); the sum of their weights names their ranks.
    codes = tuple(
        _KEY5_WEIGHTS[_SYM[i]]
        | ((0xF if _suit(i) is None else 1 << (_suit(i) or 0)) << _KEY5_SUM_BITS)
        for i in range(len(DECK_53))
    )

    def weight(counts: Sequence[int]) -> int:
        return sum(w * n for w, n in zip(_KEY5_WEIGHTS, counts, strict=True))

    unsuited = {weight(_decode(code)): key for code, key in
                zip(tables.levels[5].tolist(), tables.nonflush[5].tolist(), strict=True)}
    flush = {weight([(mask >> s) & 1 for s in range(SYMBOLS)]): int(tables.flush[mask])
             for mask in range(1 << SYMBOLS) if mask.bit_count() == MIN_HAND}
    if len(unsuited) != len(tables.levels[5]):
        raise AssertionError("the 5-card rank weights do not tell all five-card hands apart")
    sums, suits = (1 << _KEY5_SUM_BITS) - 1, 0xF << _KEY5_SUM_BITS

    def key5(cards: Sequence[int]) -> int:
        """Key of five different cards given by index (docs/rules.md 1.1, 6a.3, 6a.4):
        ``rank_high(...).key``. Unchecked."""
        a, b, c, d, e = cards
        a = codes[a]
        b = codes[b]
        c = codes[c]
        d = codes[d]
        e = codes[e]
        x = a + b + c + d + e
        if a & b & c & d & e & suits:
            return flush[x & sums]
        key: int = unsuited[x & sums]
        return key

    return key5


def _make_key7(tables: Tables) -> Key7:
    # One int per card: the rank code in bits 0..41, the suit counters in 42..57.
    codes = tuple(_RANK_CODE[i] | (_SUIT_COUNTER[i] << _COUNTER_SHIFT)
                  for i in range(len(DECK_53)))
    masks = _SUIT_MASK
    nonflush = dict(zip(tables.levels[7].tolist(), tables.nonflush[7].tolist(), strict=True))
    flush = tables.flush.tolist()
    add, top = _COUNTER_ADD << _COUNTER_SHIFT, _COUNTER_TOP << _COUNTER_SHIFT
    rank_fields, mask_bits = _RANK_FIELDS, _MASK_BITS
    shift_of = {t << (_COUNTER_SHIFT + 3): _SUIT_FIELD * s for t, s in _SUIT_OF_TOP.items()}

    def key7(cards: Sequence[int]) -> int:
        """Best key of the 21 five-card hands in seven different cards given by index
        (docs/rules.md 1.1, 6a.3, 6a.4). Unchecked."""
        a, b, c, d, e, f, g = cards
        x = codes[a] + codes[b] + codes[c] + codes[d] + codes[e] + codes[f] + codes[g]
        flushing = (x + add) & top
        best: int = nonflush[x & rank_fields]
        if flushing:
            m = masks[a] + masks[b] + masks[c] + masks[d] + masks[e] + masks[f] + masks[g]
            suited: int = flush[(m >> shift_of[flushing]) & mask_bits]
            return suited if suited > best else best
        return best

    return key7


@dataclass(frozen=True, slots=True, kw_only=True)
class FastEvaluator:
    """The fast paths for one wheel option. ``key5`` and ``key7`` take card indexes and do
    not check them; :meth:`keys` takes a numpy array of hands and checks it."""

    tables: Tables
    key5: Key5
    key7: Key7

    @property
    def wheel(self) -> Wheel:
        """The wheel option the tables rank by (docs/rules.md 6a.4)."""
        return self.tables.wheel

    @property
    def high_ranks(self) -> Mapping[int, HighRank]:
        """Every key's :class:`HighRank` (the very value ``rank_high`` returns)."""
        return self.tables.high_ranks

    def keys(self, hands: npt.ArrayLike, *, chunk: int = 1 << 16) -> I64:
        """Best key of each hand (a row of 5, 6 or 7 card indexes) of a 2-d array: the
        numpy batch path. :class:`HandError` names the first bad row: an index outside
        0..52 or a card repeated in a row."""
        h = np.asarray(hands)
        if h.ndim != 2 or not MIN_HAND <= h.shape[1] <= MAX_HAND:
            raise HandError(f"hands must be an array of shape (n, 5..7), got {h.shape}")
        if h.size and not np.issubdtype(h.dtype, np.integer):
            raise HandError(f"hands must hold integer card indexes, got dtype {h.dtype}")
        if h.size and (int(h.min()) < 0 or int(h.max()) >= len(DECK_53)):
            row = int(np.flatnonzero(((h < 0) | (h >= len(DECK_53))).any(axis=1))[0])
            raise HandError(f"hand {row} holds a card index outside 0..52: {h[row].tolist()}")
        out = np.empty(len(h), dtype=np.int64)
        for start in range(0, len(h), chunk):
            part = h[start: start + chunk].astype(np.intp)
            masks = _check_batch(part, start)
            out[start: start + chunk] = _batch_keys(self.tables, part, masks)
        return out


def _check_batch(hands: npt.NDArray[np.intp], start: int) -> U64:
    """:class:`HandError` naming the first row that repeats a card; else the rows'
    :data:`SUIT_MASKS` sums."""
    masks = SUIT_MASKS[hands]
    total = masks[:, 0].copy()
    union = masks[:, 0].copy()
    for j in range(1, hands.shape[1]):
        total += masks[:, j]
        union |= masks[:, j]
    repeated = np.flatnonzero(total != union)
    if repeated.size:
        row = int(repeated[0])
        raise HandError(f"hand {start + row} repeats a card: "
                        f"{render_cards(DECK_53[i] for i in hands[row].tolist())!r}")
    return total


def _batch_keys(tables: Tables, hands: npt.NDArray[np.intp], masks: U64) -> I64:
    """Walk each row's ranks through the state machine; where its suit counters hold a
    flush, take the better of that and the flush table's key for the flush suit's mask."""
    n = hands.shape[1]
    sym = RANK_SYMBOLS[hands]
    t = tables.transitions
    state = t[sym[:, 0]]
    for j in range(1, n):
        state *= SYMBOLS
        state += sym[:, j]
        state = t[state]
    keys = tables.state_keys[n][state]
    cards = SUIT_COUNTERS[hands]
    counters = cards[:, 0].copy()
    for j in range(1, n):
        counters += cards[:, j]
    rows = np.flatnonzero(has_flush(counters))
    if rows.size:
        field = (masks[rows] >> flush_fields(counters[rows])) & np.uint64(FLUSH_MASK)
        keys[rows] = np.maximum(keys[rows], tables.flush[field.astype(np.intp)])
    return keys


@cache
def evaluator(wheel: Wheel = Wheel.SECOND_HIGHEST) -> FastEvaluator:
    """The fast evaluator for ``wheel`` (docs/rules.md 6a.4), built on first use and cached."""
    tables = _build_tables(Wheel(wheel))
    return FastEvaluator(tables=tables, key5=_make_key5(tables), key7=_make_key7(tables))


def _indexes(cards: Sequence[Card], size: int, what: str) -> list[int]:
    try:
        indexes = [card.index for card in cards]
    except (AttributeError, TypeError):
        raise HandError(f"{what} must be {size} cards, got {cards!r}") from None
    if len(indexes) != size or len(set(indexes)) != size:
        raise HandError(f"{what} must be {size} different cards, got {render_cards(cards)!r}")
    return indexes


def rank_five(cards: Sequence[Card], *, wheel: Wheel = Wheel.SECOND_HIGHEST) -> HighRank:
    """The rank of a 5-card high hand, as :func:`rank_high` gives it (docs/rules.md 1.1,
    6a.3, 6a.4), by the fast path. :class:`HandError` unless five different cards."""
    ev = evaluator(wheel)
    return ev.high_ranks[ev.key5(_indexes(cards, MIN_HAND, "a high hand"))]


def best_of_seven(cards: Sequence[Card], *, wheel: Wheel = Wheel.SECOND_HIGHEST) -> HighRank:
    """The best 5-card high hand in seven cards (the best of the 21 five-card hands by
    :func:`rank_high`; docs/rules.md 1.1, 6a.3, 6a.4; the "best hand possible among the
    player's seven cards" of 58 Pa. Code § 688a.1, in pai gow poker order). :class:`HandError`
    unless seven different cards."""
    ev = evaluator(wheel)
    return ev.high_ranks[ev.key7(_indexes(cards, MAX_HAND, "a pai gow poker hand"))]


__all__ = [
    "FLUSH_MASK", "JOKER_INDEX", "MAX_HAND", "MIN_HAND", "RANK_CODES", "RANK_SYMBOLS",
    "SUIT_COUNTERS", "SUIT_MASKS", "SYMBOLS", "FastEvaluator", "Tables", "best_of_seven",
    "category_of", "evaluator", "flush_fields", "has_flush", "rank_five",
]
