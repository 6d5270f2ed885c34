"""What every game module declares, so shared code never branches on a game's name."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from replay.games.results import ResultObject
    from replay.ruleset_model import Ruleset


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

PAYOUT_KINDS = frozenset({"odds", "fixed_cents", "meter_bps"})
"""How a paytable line pays (replay.rulesets.Payout)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class PaytableClasses:
    """What a posted paytable of a game may hold: ``classes``, every hand class the game
    can name on it (best first); ``required``, those the rules say the wager pays, each of
    which the paytable must post (a missing one would silently lose); ``pays``, the kinds of
    payout its lines may be (``odds``, ``fixed_cents``, ``meter_bps``)."""

    classes: tuple[str, ...]
    required: tuple[str, ...]
    pays: frozenset[str] = PAYOUT_KINDS

    def __post_init__(self) -> None:
        if not self.classes or len(set(self.classes)) != len(self.classes):
            raise ValueError(f"paytable classes must be distinct names, got {self.classes!r}")
        outside = [c for c in self.required if c not in self.classes]
        if outside:
            raise ValueError(f"required paytable lines {outside} are not classes of the "
                             f"paytable {self.classes!r}")
        if not self.pays or not self.pays <= PAYOUT_KINDS:
            raise ValueError(f"payout kinds must be some of {sorted(PAYOUT_KINDS)}, "
                             f"got {sorted(self.pays)}")


DealerSetting = Callable[[Sequence[str], "Ruleset"],
                         "tuple[tuple[str, ...], tuple[str, ...]] | None"]
"""A game's house-way setting of the dealer's dealt tokens (in notation) under a ruleset:
(high, low) tokens in notation; None when the tokens are no dealer's hand of the game or the
ruleset's house way is unknown."""


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
    paytable_classes: Mapping[str, PaytableClasses] = field(default_factory=dict)
    """Per paytable of :attr:`paytable_names`, the hand classes its lines may name and
    those it must post (``python -m replay rulesets check`` reads them)."""
    house_ways: frozenset[str] = frozenset()
    """The house ways shipped for the game, by the names a ruleset's ``house_way`` gives
    them; empty for a game whose dealer sets no hand (Caribbean stud)."""
    describe_hand: DescribeHand | None = None
    """The rank of a hand in words (``"pair of kings, ace-queen"``, ``"Gee Joon"``), from its
    tokens in notation; None when the tokens are no hand of this game. Used by replay's
    reconstruction (hands.parquet ``high_rank``/``low_rank``) and the dashboard."""
    paytable_class: PaytableClass | None = None
    """The class the engine judges a party's dealt hand to be for the progressive paytable
    (jackpots.parquet ``judged_hand``); None for a game without a progressive."""
    dealer_setting: DealerSetting | None = None
    """The dealer's hand as a ruleset's house way sets it, from the dealt tokens (a what-if
    under another house way, replay/whatif.py); None for a game whose dealer sets no hand."""

    def __post_init__(self) -> None:
        unknown = sorted(set(self.paytable_classes) - self.paytable_names)
        if unknown:
            raise ValueError(f"game {self.name}: classes given for paytables {unknown} it "
                             f"does not read")
