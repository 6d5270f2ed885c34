"""What every game module declares, so shared code never branches on a game's name."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from replay.games.results import ResultObject
    from replay.rulesets import Ruleset


class JudgeDocument(Protocol):
    """A game's judge of one round document (README "Round documents"): the parsed JSON
    object in, the result object out; raises :class:`replay.document.DocumentError` naming
    what is wrong. Pure: no I/O, no clock. ``as_recorded``: the document is a round of the
    log, whose cards (or tiles beyond their copies) dealt to two parties are judged as
    recorded (docs/rules.md 8.1); a document given by hand refuses them as an input error."""

    def __call__(self, doc: Mapping[str, Any], ruleset: Ruleset, /, *,
                 as_recorded: bool = False) -> ResultObject: ...


DescribeHand = Callable[[Sequence[str]], "str | None"]
"""A game's name for a hand given as tokens in notation (cards or tiles)."""

PaytableClass = Callable[[Sequence[str], "Ruleset"], "str | None"]
"""A game's paytable class of a party's dealt hand, from its tokens in notation, under a
ruleset: the name the ruleset's paytables use (``natural_seven_card_straight_flush``,
``royal_flush`` ...); None when the tokens make no class or are no hand of the game."""


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
    paytable_class: PaytableClass | None = None
    """The class the engine judges a party's dealt hand to be for the progressive paytable
    (jackpots.parquet ``judged_hand``); None for a game without a progressive."""
