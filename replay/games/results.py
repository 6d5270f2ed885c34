"""The result object of a judged round (issue 3 "Result"), in one place for every game.

Other tools read it, so its keys and their order are fixed here::

    {"round_id", "ruleset", "evaluated": true,
     "dealer": {"foul", "house_way", "ace_high_pai_gow", "qualifies", "net"},
     "seats": [{"seat", "foul", "wagers": {name: {"outcome", "net", "commission"}}, "envy"}],
     "banker": {"seat", "net", "commission", "house_net"}   (player-banked rounds only)}

A game reports what it has and leaves the rest at what a game without it reports:
``ace_high_pai_gow`` false (only Face Up has it), ``qualifies`` null (only Caribbean stud),
the dealer's ``net`` 0 (only a dealer wagering against a pai gow player banker has one),
``envy`` 0 (only the games with the Envy Bonus). Wagers of zero or absent are left out by
the games (docs/rules.md 6a.18). Plain dicts, built by position on Face Up's hot path.
"""

from __future__ import annotations

from enum import StrEnum
from typing import NotRequired, Protocol, TypedDict


class Outcome(StrEnum):
    """A wager's outcome, as the result reports it (issue 3 "Result": "outcome is one of win,
    loss, push, void"; schemas ``WagerSettled.outcome``). The pai gow games settle a wager as
    a win, a loss or a push and never void one; only Caribbean stud voids a wager."""

    WIN = "win"
    LOSS = "loss"
    PUSH = "push"
    VOID = "void"
    """Caribbean stud's raise when the dealer does not qualify (Caribbean stud rule 9.2: "bet
    wagers shall be void"); net 0."""


class WagerEntry(TypedDict):
    """A wager's settlement in the result: outcome, net after commission, commission."""

    outcome: str
    net: int
    commission: int


class SeatEntry(TypedDict):
    """A seat in the result: its number, foul (null when it set no hand), its wagers by name
    and the Envy Bonus it received, in cents."""

    seat: int
    foul: bool | None
    wagers: dict[str, WagerEntry]
    envy: int


class DealerEntry(TypedDict):
    """The dealer in the result (see :func:`dealer_entry`)."""

    foul: bool | None
    house_way: bool | None
    ace_high_pai_gow: bool
    qualifies: bool | None
    net: int


class BankerEntry(TypedDict):
    """A player banker's account in the result (see :func:`banker_entry`)."""

    seat: int
    net: int
    commission: int
    house_net: int


class ResultObject(TypedDict):
    """The one judgement shape every game returns, whatever the game (see the module
    docstring): the two front doors (round documents and the log) read only this."""

    round_id: str
    ruleset: str
    evaluated: bool
    dealer: DealerEntry
    seats: list[SeatEntry]
    banker: NotRequired[BankerEntry]
    problems: NotRequired[list[str]]


def wager_entry(outcome: str, net: int, commission: int) -> WagerEntry:
    """A wager's entry: its outcome (win, loss, push, void), its net after commission and
    the commission, in cents."""
    return {"outcome": outcome, "net": net, "commission": commission}


class SettledWager(Protocol):
    """A wager's settlement as the games keep it (pai gow ``Settlement``, Caribbean stud
    ``WagerResult``)."""

    @property
    def outcome(self) -> Outcome: ...

    @property
    def net_cents(self) -> int: ...

    @property
    def commission_cents(self) -> int: ...


def settled_entry(settled: SettledWager) -> WagerEntry:
    """:func:`wager_entry` of a settlement."""
    return wager_entry(settled.outcome.value, settled.net_cents, settled.commission_cents)


def seat_entry(
    seat: int, foul: bool | None, wagers: dict[str, WagerEntry], envy: int = 0
) -> SeatEntry:
    """A seat's entry: its number, whether its hand fouled (null when it set none), its
    wagers' entries by name, and the Envy Bonus it received in cents."""
    return {"seat": seat, "foul": foul, "wagers": wagers, "envy": envy}


def dealer_entry(
    *,
    foul: bool | None,
    house_way: bool | None,
    ace_high_pai_gow: bool = False,
    qualifies: bool | None = None,
    net: int = 0,
) -> DealerEntry:
    """The dealer's entry: whether its hand fouled, whether it follows the house way (null
    where the game has none), whether it is an Ace High Pai Gow, whether it qualifies, and
    its own result in cents against a player banker."""
    return {"foul": foul, "house_way": house_way, "ace_high_pai_gow": ace_high_pai_gow,
            "qualifies": qualifies, "net": net}


def banker_entry(*, seat: int, net: int, commission: int, house_net: int) -> BankerEntry:
    """A player banker's entry: its seat, its net after commission, the commission and the
    house's net of the round, in cents (docs/rules.md 6a.14)."""
    return {"seat": seat, "net": net, "commission": commission, "house_net": house_net}


def result_object(
    *,
    round_id: str,
    ruleset_id: str,
    dealer: DealerEntry,
    seats: list[SeatEntry],
    banker: BankerEntry | None = None,
    problems: tuple[str, ...] = (),
) -> ResultObject:
    """The result object of an evaluated round: its id, the ruleset used, the dealer's and
    the seats' entries, the banker's when a player banks, and ``problems`` when the judge
    settled the round as recorded but found something an analyst should see (a Caribbean
    stud raise that is not twice the ante, say); absent when there is none."""
    result: ResultObject = {"round_id": round_id, "ruleset": ruleset_id, "evaluated": True,
                              "dealer": dealer, "seats": seats}
    if banker is not None:
        result["banker"] = banker
    if problems:
        result["problems"] = list(problems)
    return result
