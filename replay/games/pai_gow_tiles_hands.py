"""Set pai gow tiles hands: the three ways to set four tiles, a set hand against the
banker's, and the main wager's settlement (PR pai gow tiles ¶ A, H, I, J, K; docs/rules.md 3.3,
3.6, 6, 6a.2, 6a.16).

What this module decides, each with the rule it implements:

- the three ways to set four tiles, each the way round that does not foul
  (:func:`settings`; docs/rules.md, Words ("set")), and a setting as given (:func:`set_hands`);
- a set hand against the banker's (:func:`compare`; PR pai gow tiles ¶ H, I, J: win both to
  win, copies to the banker, a player's low hand of value zero never wins);
- the main wager's settlement (:func:`settle_main`; PR pai gow tiles ¶ K, docs/rules.md 6a.2:
  1:1 less the ruleset's :func:`vigorish`, lawful within :func:`lawful_vigorish`);
- every distinct four-tile hand with its multiplicity (:func:`four_tile_hands`).

No rate or rounding is a literal here: the vigorish and its lawful range come from the
``Ruleset``'s commission. Nothing here does I/O.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import combinations_with_replacement
from typing import TYPE_CHECKING

from replay.errors import HandError, MoneyError
from replay.games.results import Outcome
from replay.games.tile_ranks import HAND_TILES, HandRank, rank_hand
from replay.tiles import FACES, Tile, render_tiles

if TYPE_CHECKING:
    from replay.ruleset_model import Ruleset

HAND_SIZE = 4
"""Tiles dealt to each seat and to the dealer (PR pai gow tiles ¶ A: "una mano mayor y una
mano menor" of two tiles each)."""


def _as_rank(hand: HandRank | Sequence[Tile]) -> HandRank:
    return hand if isinstance(hand, HandRank) else rank_hand(hand)


def canonical(tiles: Iterable[Tile]) -> tuple[Tile, ...]:
    """``tiles`` in the fixed order of :data:`replay.tiles.FACES` (highest single tile
    first), the order every hand is written in by this module."""
    return tuple(sorted(tiles, key=lambda t: t.index))


@dataclass(frozen=True, slots=True, kw_only=True)
class Setting:
    """Four tiles set into a ``high`` and a ``low`` hand (each in :func:`canonical` order),
    with their ranks. :func:`settings` gives them the way round that does not foul."""

    high: tuple[Tile, Tile]
    low: tuple[Tile, Tile]
    high_rank: HandRank
    low_rank: HandRank

    def __post_init__(self) -> None:
        for name in ("high", "low"):
            hand = getattr(self, name)
            if len(hand) != HAND_TILES or not all(isinstance(t, Tile) for t in hand):
                raise HandError(f"a {name} hand is two tiles, got {hand!r}")
        if rank_hand(self.high) != self.high_rank or rank_hand(self.low) != self.low_rank:
            raise HandError(f"ranks do not match the hands of {self}")

    @property
    def foul(self) -> bool:
        """True when the high hand ranks below the low hand."""
        return self.high_rank < self.low_rank

    def __str__(self) -> str:
        return f"{render_tiles(self.high)} / {render_tiles(self.low)}"


def _two(tiles: Iterable[Tile]) -> tuple[Tile, Tile]:
    hand = canonical(tiles)
    if len(hand) != HAND_TILES:
        raise HandError(f"a hand is two tiles, got {render_tiles(hand)!r}")
    return hand[0], hand[1]


def set_hands(high: Sequence[Tile], low: Sequence[Tile]) -> Setting:
    """The :class:`Setting` with ``high`` and ``low`` as given (a foul stays a foul)."""
    h, lo = _two(high), _two(low)
    return Setting(high=h, low=lo, high_rank=rank_hand(h), low_rank=rank_hand(lo))


def _four(tiles4: Sequence[Tile]) -> tuple[Tile, ...]:
    if isinstance(tiles4, str) or len(tiles4) != HAND_SIZE or not all(
        isinstance(t, Tile) for t in tiles4
    ):
        raise HandError(f"a pai gow tiles hand is {HAND_SIZE} tiles, got {tiles4!r}")
    return canonical(tiles4)


def settings(tiles4: Sequence[Tile]) -> tuple[Setting, Setting, Setting]:
    """The three ways to set four tiles (docs/rules.md 3.6: "each with 3 ways to set"), each the
    way round that does not foul: the higher ranking hand high (the first of the four
    tiles' hand high when they rank equally). With the tiles in :func:`canonical` order
    ``t0 t1 t2 t3``, the splits are t0 with t1, with t2, then with t3."""
    t = _four(tiles4)
    out = []
    for j in (1, 2, 3):
        a = (t[0], t[j])
        b = _two(t[i] for i in (1, 2, 3) if i != j)
        ra, rb = rank_hand(a), rank_hand(b)
        if ra >= rb:
            out.append(Setting(high=a, low=b, high_rank=ra, low_rank=rb))
        else:
            out.append(Setting(high=b, low=a, high_rank=rb, low_rank=ra))
    return out[0], out[1], out[2]


# ---------------------------------------------------------------------------------------
# Comparison and settlement
# ---------------------------------------------------------------------------------------


def compare(
    *,
    player_high: HandRank | Sequence[Tile],
    player_low: HandRank | Sequence[Tile],
    banker_high: HandRank | Sequence[Tile],
    banker_low: HandRank | Sequence[Tile],
) -> Outcome:
    """A set hand against the banker's (hands as tiles or as ranks), fouls aside.

    PR pai gow tiles ¶ J, a win when the high hand ranks higher than the banker's high hand and the
    low hand higher than the banker's low hand; ¶ H, a loss when the high hand is identical in rank
    (a copy) or lower and the low hand is identical, lower, or of value zero; ¶ I, a push otherwise
    (one hand higher, the other a copy, lower, or a low hand of value zero).
    docs/rules.md 3.3, 6a.16: copies go to the banker, zero against zero is a copy, a player's
    zero low hand never wins.
    """
    p_low = _as_rank(player_low)
    high_won = _as_rank(player_high) > _as_rank(banker_high)
    low_won = p_low > _as_rank(banker_low) and not p_low.is_zero
    if high_won and low_won:
        return Outcome.WIN
    if not high_won and not low_won:
        return Outcome.LOSS
    return Outcome.PUSH


def _int(name: str, value: object) -> int:
    if type(value) is not int:
        raise MoneyError(f"{name} must be integer cents, got {value!r}")
    return value


@dataclass(frozen=True, slots=True, kw_only=True)
class Settlement:
    """What a wager's outcome is worth to its holder: ``net_cents`` (after vigorish) and the
    ``commission_cents`` (vigorish) the house collected."""

    outcome: Outcome
    net_cents: int
    commission_cents: int
    commission_range: tuple[int, int] | None = None
    """The lawful commission on a win, lowest and highest (docs/rules.md 6a.19); None when
    ``commission_cents`` is the only lawful amount."""

    def __post_init__(self) -> None:
        if not isinstance(self.outcome, Outcome) or self.outcome is Outcome.VOID:
            raise MoneyError(f"pai gow tiles voids no wager: outcome must be a win, loss or "
                             f"push, got {self.outcome!r}")
        net = _int("net_cents", self.net_cents)
        commission = _int("commission_cents", self.commission_cents)
        if commission < 0:
            raise MoneyError(f"commission_cents must not be negative, got {commission}")
        if self.outcome is not Outcome.WIN and commission:
            raise MoneyError(
                f"no vigorish on a {self.outcome} (PR pai gow tiles ¶ K), got {commission}"
            )
        if self.outcome is Outcome.LOSS and net > 0:
            raise MoneyError(f"a loss cannot have a positive net, got {net}")
        if self.outcome is Outcome.PUSH and net:
            raise MoneyError(f"a push has a net of 0, got {net}")
        if self.commission_range is not None and not (
                self.outcome is Outcome.WIN
                and self.commission_range[0] <= commission <= self.commission_range[1]):
            raise MoneyError(f"commission range {self.commission_range} on a "
                             f"{self.outcome} with commission {commission}")


def vigorish(win_cents: int, ruleset: Ruleset) -> int:
    """The vigorish the house collects on a win (PR pai gow tiles ¶ K; docs/rules.md 6, 6a.2):
    the ruleset's commission (5% rounded up to the next 25 cents in the shipped ruleset: a $7
    win pays 50 cents), never more than the win (a 10-cent win pays 10)."""
    return ruleset.commission.on(win_cents)


def lawful_vigorish(win_cents: int, ruleset: Ruleset) -> tuple[int, int]:
    """The lowest and highest lawful vigorish on a win (PR pai gow tiles ¶ K; docs/rules.md
    6a.2, 6a.19): in the shipped ruleset from the exact 5% rounded down to the cent up to 5%
    rounded up to the next 25 cents, never more than the win: 700 -> (35, 50), 10 -> (0,
    10)."""
    return ruleset.commission.lawful(win_cents)


def settle_main(*, amount_cents: int, outcome: Outcome, ruleset: Ruleset) -> Settlement:
    """The main wager's settlement (PR pai gow tiles ¶ K): a win pays 1:1 less
    :func:`vigorish` (a 2500 win: net 2375, vigorish 125), with :func:`lawful_vigorish` when
    it is wider than the point (a 700 win: 35 to 50); a loss loses the amount (¶ H); a push
    returns it (¶ I, net 0). No vigorish on pushes or losses."""
    amount = _int("amount_cents", amount_cents)
    if amount < 0:
        raise MoneyError(f"amount_cents must not be negative, got {amount}")
    if outcome is Outcome.WIN:
        vig = vigorish(amount, ruleset)
        lawful = lawful_vigorish(amount, ruleset) if ruleset.commission.ranged else None
        return Settlement(outcome=outcome, net_cents=amount - vig, commission_cents=vig,
                          commission_range=None if lawful == (vig, vig) else lawful)
    if outcome is Outcome.LOSS:
        return Settlement(outcome=outcome, net_cents=-amount, commission_cents=0)
    if outcome is Outcome.PUSH:
        return Settlement(outcome=outcome, net_cents=0, commission_cents=0)
    raise MoneyError(f"pai gow tiles voids no wager: outcome must be a win, loss or push, "
                     f"got {outcome!r}")



def four_tile_hands() -> tuple[tuple[tuple[Tile, ...], int], ...]:
    """Every distinct four-tile hand of the 32-tile set, as (tiles in :func:`canonical`
    order, how many of the C(32, 4) = 35,960 physical combinations have those faces), in
    the order of ``combinations_with_replacement`` over :data:`replay.tiles.FACES`. The
    multiplicities sum to 35,960 (docs/rules.md 5, figure 5)."""
    out = []
    for faces in combinations_with_replacement(FACES, HAND_SIZE):
        counts = Counter(faces)
        if any(n > tile.copies for tile, n in counts.items()):
            continue
        ways = 1
        for tile, n in counts.items():
            ways *= _choose(tile.copies, n)
        out.append((faces, ways))
    return tuple(out)


def _choose(n: int, k: int) -> int:
    result = 1
    for i in range(k):
        result = result * (n - i) // (i + 1)
    return result
