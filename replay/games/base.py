"""What every game module declares, so shared code never branches on a game's name."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from replay.games.results import ResultObject
    from replay.rulesets import Ruleset

JudgeDocument = Callable[[Mapping[str, Any], "Ruleset"], "ResultObject"]
"""A game's judge of one round document (README "Round documents"): the parsed JSON object
in, the result object out; raises :class:`replay.document.DocumentError` naming what is
wrong. Pure: no I/O, no clock."""


DescribeHand = Callable[[Sequence[str]], "str | None"]
"""A game's name for a hand given as tokens in notation (cards or tiles)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class GameRules:
    """What shared code needs to know about a game: its name (as in rounds, rulesets and
    events), a title, the deck or tile set its rounds are dealt from, the rule it cites, the
    ruleset options and paytables it reads, and its judge of round documents."""

    name: str
    title: str
    deck: tuple[Any, ...]
    citation: str
    judge_document: JudgeDocument
    option_names: frozenset[str] = frozenset()
    """Game-specific ruleset options the module reads (beyond wheel and house_way)."""
    paytable_names: frozenset[str] = frozenset()
    """Paytables the module reads from its rulesets."""
    describe_hand: DescribeHand | None = None
    """The rank of a hand in words (``"pair of kings, ace-queen"``, ``"Gee Joon"``), from its
    tokens in notation; None when the tokens are no hand of this game. Used by replay's
    reconstruction (hands.parquet ``high_rank``/``low_rank``) and the dashboard."""
