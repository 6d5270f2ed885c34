"""Pai gow tiles (house way, withdrawal, vigorish rounded to 25 cents).

Not judged yet: this module declares the game so the registry, rulesets and round documents
know it; its rules arrive with issue 3.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from replay.document import DocumentError
from replay.games.base import GameRules

if TYPE_CHECKING:
    from replay.rulesets import Ruleset

GAME = "pai_gow_tiles"


def judge_document(doc: Mapping[str, Any], ruleset: Ruleset) -> dict[str, Any]:
    """Not yet: every document of this game is refused with a clear reason."""
    raise DocumentError(f"game {GAME} cannot be judged yet")


RULES = GameRules(
    name=GAME,
    title="Pai gow tiles (house way, withdrawal, vigorish rounded to 25 cents)",
    deck=(),
    citation="REFERENCE.md 3, 6, 6a",
    judge_document=judge_document,
)
