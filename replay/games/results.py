"""The result object of a judged round, in one place for every game.

Other tools read it, so its keys and their order are fixed here::

    {"round_id", "ruleset", "evaluated": true,
     "dealer": {"foul", "house_way", "ace_high_pai_gow", "qualifies", "net"},
     "seats": [{"seat", "foul",
                "wagers": {name: {"outcome", "net", "commission",
                                  ["net_range", "commission_range"]}},
                "envy"}],
     "banker": {"seat", "net", "commission", "house_net",
                ["net_range", "commission_range"]}   (player-banked rounds only)}

``net`` and ``commission`` are the settlement the house makes by default (the ruleset's
collected commission). Where the texts let the house choose (docs/rules.md 6a.19), every
amount from ``net_range[0]`` to ``net_range[1]`` and from ``commission_range[0]`` to
``commission_range[1]`` (integer cents, both ends included) is lawful too: a pai gow tiles
win of 700 is ``"net": 650, "commission": 50, "net_range": [650, 665], "commission_range":
[35, 50]``. The two ranges are present together, and only when the lawful range is wider
than the point, so a result whose every amount is the only lawful one (pai gow poker, Face
Up, Caribbean stud) has exactly the keys it always had; a reader takes an absent range as
``[net, net]`` and ``[commission, commission]``.

A game reports what it has and leaves the rest at what a game without it reports:
``ace_high_pai_gow`` false (only Face Up has it), ``qualifies`` null (only Caribbean stud),
the dealer's ``net`` 0 (only a dealer wagering against a pai gow player banker has one),
``envy`` 0 (only the games with the Envy Bonus). Wagers of zero or absent are left out by
the games (docs/rules.md 6a.18). Plain dicts, built by position on Face Up's hot path.
"""

from __future__ import annotations

from enum import StrEnum
from typing import NotRequired, Protocol, TypedDict

from replay.errors import MoneyError


class Outcome(StrEnum):
    """A wager's outcome, as the result reports it (one of win, loss, push, void; schemas
    ``WagerSettled.outcome``). The pai gow games settle a wager as
    a win, a loss or a push and never void one; only Caribbean stud voids a wager."""

    WIN = "win"
    LOSS = "loss"
    PUSH = "push"
    VOID = "void"
    """Caribbean stud's raise when the dealer does not qualify (Caribbean stud rule 9.2: "bet
    wagers shall be void"); net 0."""


class WagerEntry(TypedDict):
    """A wager's settlement in the result: outcome, net after commission, commission, and
    the lawful ranges of the two where they are wider than the point (module docstring)."""

    outcome: str
    net: int
    commission: int
    net_range: NotRequired[list[int]]
    commission_range: NotRequired[list[int]]


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
    net_range: NotRequired[list[int]]
    commission_range: NotRequired[list[int]]


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


def wager_entry(outcome: str, net: int, commission: int, *,
                net_range: tuple[int, int] | None = None,
                commission_range: tuple[int, int] | None = None) -> WagerEntry:
    """A wager's entry: its outcome (win, loss, push, void), its net after commission and
    the commission, in cents, with their lawful ranges when wider than the point
    (:func:`add_ranges`)."""
    entry: WagerEntry = {"outcome": outcome, "net": net, "commission": commission}
    add_ranges(entry, net_range, commission_range)
    return entry


def add_ranges(entry: WagerEntry | BankerEntry, net_range: tuple[int, int] | None,
               commission_range: tuple[int, int] | None) -> None:
    """Add ``net_range`` and ``commission_range`` to ``entry`` when either is wider than the
    entry's point (an absent range is the point). MoneyError when a range does not hold
    its point: the default settlement is always lawful."""
    net_lo, net_hi = net_range or (entry["net"], entry["net"])
    com_lo, com_hi = commission_range or (entry["commission"], entry["commission"])
    if not (net_lo <= entry["net"] <= net_hi and com_lo <= entry["commission"] <= com_hi):
        raise MoneyError(
            f"lawful range net {net_lo} to {net_hi}, commission {com_lo} to {com_hi} does "
            f"not hold the settlement net {entry['net']}, commission {entry['commission']}"
        )
    if net_lo < net_hi or com_lo < com_hi:
        entry["net_range"] = [net_lo, net_hi]
        entry["commission_range"] = [com_lo, com_hi]


def win_ranges(amount: int, commission_range: tuple[int, int]
               ) -> tuple[tuple[int, int], tuple[int, int]]:
    """The lawful (net, commission) ranges of a win of ``amount`` paid 1:1 less a commission
    in ``commission_range``: the net is the amount less the commission, so its lowest goes
    with the highest commission."""
    low, high = commission_range
    return (amount - high, amount - low), (low, high)


_BPS_WHOLE = 10_000


def meter_award_range(meter_cents: int, meter_bps: int, sharing: int) -> tuple[int, int]:
    """The lawful range of one winner's share of a percentage-of-meter award (docs/rules.md
    6a.13, 6a.19): the texts say neither how the percentage is rounded to the cent nor who
    takes the odd cents when several seats share the award. Lowest: the percentage rounded
    down to the cent, shared equally and rounded down (what the shipped rulesets pay);
    highest: rounded up, shared and rounded up (the odd cents to this winner). 10% of a
    meter of 2,500,001 cents shared by two: 125,000 to 125,001."""
    whole = meter_cents * meter_bps
    low = whole // _BPS_WHOLE // sharing
    rounded_up = -(-whole // _BPS_WHOLE)
    high = -(-rounded_up // sharing)
    return low, high


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
    """:func:`wager_entry` of a settlement, with its ``commission_range`` (the lawful
    commission on a win, when the settlement carries one) and the net range that follows,
    or its own ``net_range`` (a share of the meter: :func:`meter_award_range`)."""
    commission_range: tuple[int, int] | None = getattr(settled, "commission_range", None)
    if commission_range is None:
        return wager_entry(settled.outcome.value, settled.net_cents, settled.commission_cents,
                           net_range=getattr(settled, "net_range", None))
    net_range, _ = win_ranges(settled.net_cents + settled.commission_cents, commission_range)
    return wager_entry(settled.outcome.value, settled.net_cents, settled.commission_cents,
                       net_range=net_range, commission_range=commission_range)


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


def banker_entry(*, seat: int, net: int, commission: int, house_net: int,
                 net_range: tuple[int, int] | None = None,
                 commission_range: tuple[int, int] | None = None) -> BankerEntry:
    """A player banker's entry: its seat, its net after commission, the commission and the
    house's net of the round, in cents (docs/rules.md 6a.14), with the lawful ranges of the
    net and the commission when wider than the point (docs/rules.md 6a.19: the commission's
    range, the co-bank's odd cent)."""
    entry: BankerEntry = {"seat": seat, "net": net, "commission": commission,
                          "house_net": house_net}
    add_ranges(entry, net_range, commission_range)
    return entry


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
