"""The registry of game modules: one module of data plus a little code per game, found by
name through :func:`find_game`, which raises on an unknown name.

Each game module declares ``RULES`` (a :class:`~replay.games.base.GameRules`); shared code
asks the registry instead of branching on a game's name.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from replay.errors import UnknownGameError
from replay.games import caribbean_stud, face_up_pai_gow, pai_gow_poker, pai_gow_tiles
from replay.games.base import GameRules

GAMES: Mapping[str, GameRules] = MappingProxyType({
    module.RULES.name: module.RULES
    for module in (pai_gow_poker, face_up_pai_gow, pai_gow_tiles, caribbean_stud)
})
"""Every registered game by name."""


def find_game(name: str) -> GameRules:
    """The registered game called ``name``; :class:`UnknownGameError` names an unknown one."""
    game = GAMES.get(name) if isinstance(name, str) else None
    if game is None:
        raise UnknownGameError(f"unknown game {name!r}; known: {', '.join(sorted(GAMES))}")
    return game


__all__ = ["GAMES", "GameRules", "find_game"]
