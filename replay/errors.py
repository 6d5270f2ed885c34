"""The replay package's exceptions: one root, ``ReplayError``, and a narrow subclass per layer.

One root exception per package, and every message names the bad value (a card
token and its position, a ruleset id, a game and a date, a round in its one-line notation).
The subclasses that reject a malformed value also derive from ``ValueError``, and the ones
that fail a lookup from ``LookupError``, so that callers may catch either.
"""

from __future__ import annotations


class ReplayError(Exception):
    """Root of every error raised by ``replay``."""


class CardError(ReplayError, ValueError):
    """A card token, or a list of cards, that is not in the notation."""


class HandError(ReplayError, ValueError):
    """Cards that cannot form the hand asked for: wrong count, or a card repeated."""


class MoneyError(ReplayError, ValueError):
    """An amount that is not integer cents, or is out of range (money is never a float)."""


class RoundError(ReplayError, ValueError):
    """A round, holding or settlement value that is malformed (named with the bad value)."""


class NotationError(ReplayError, ValueError):
    """A one-line round notation that cannot be parsed (names the position and the text)."""


class RulesetError(ReplayError):
    """A ruleset data file or value that is malformed, or a lookup that cannot be answered."""


class UnknownRulesetError(RulesetError, LookupError):
    """No shipped ruleset has the id asked for."""


class NoRulesetInForceError(RulesetError, LookupError):
    """No shipped ruleset for the game is in force on the date asked for."""


class UnknownGameError(ReplayError, LookupError):
    """A game name that no registered game module declares."""
