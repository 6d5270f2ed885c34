"""The registry of game modules (STYLE.md 2): one module of data plus a little code per game,
found by name through :func:`find_game`, which raises on an unknown name.

Shared code asks the registry instead of branching on a game's name. Only classic pai gow
poker is registered so far; Face Up pai gow, pai gow tiles and Caribbean stud will be
added here as their modules are written.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

from replay.cards import DECK_53, Card
from replay.errors import UnknownGameError
from replay.games import pai_gow_poker


@dataclass(frozen=True, slots=True, kw_only=True)
class GameRules:
    """What shared code needs to know about a game: its name (as in rounds, rulesets and
    events), a title, the deck its rounds are dealt from, and the rule it cites."""

    name: str
    title: str
    deck: tuple[Card, ...]
    citation: str
    option_names: frozenset[str] = frozenset()
    """Game-specific ruleset options the module reads (beyond wheel and house_way)."""
    paytable_names: frozenset[str] = frozenset()
    """Paytables the module reads from its rulesets."""


GAMES: Mapping[str, GameRules] = MappingProxyType({
    pai_gow_poker.GAME: GameRules(
        name=pai_gow_poker.GAME,
        title="Pai gow poker (classic, dealer banked)",
        deck=DECK_53,
        citation="REFERENCE.md 1, 6, 6a",
    ),
})
"""Every registered game by name."""


def find_game(name: str) -> GameRules:
    """The registered game called ``name``; :class:`UnknownGameError` names an unknown one."""
    game = GAMES.get(name) if isinstance(name, str) else None
    if game is None:
        raise UnknownGameError(f"unknown game {name!r}; known: {', '.join(sorted(GAMES))}")
    return game
