"""The player banker and co-banking of the pai gow games (docs/rules.md 1.2, 6a.14), shared by
classic pai gow poker (:mod:`replay.games.pai_gow_poker`) and pai gow tiles
(:mod:`replay.games.pai_gow_tiles`, which adopts the same conventions; 58 Pa. Code § 621a.1).

What this module decides, each with the rule it implements:

- who banks a round document (:func:`read_banker`; the round document's ``"banker":
  "dealer" | {"seat": 3, "co_bank": false}``, default ``"dealer"``) as a
  :class:`PlayerBanker` or None;
- the co-banking player's share of the bank (:func:`co_bank_share`; pai gow poker procedure
  (11), § 621a.1: 50/50; 6a.14: half the gross rounded toward zero), from the ruleset options
  :data:`OPTION_CO_BANK_SHARE_BPS` and :data:`OPTION_CO_BANK_ROUNDING`, and the lawful
  shares of an odd cent (:func:`co_bank_shares`; 6a.19: either way when the ruleset's
  :data:`OPTION_CO_BANK_ODD_CENT_EITHER_WAY` says so);
- the dealer's own wager against a player banker (:func:`dealer_wager_net`; pai gow poker
  procedure (10), 6a.14: the house pays no commission on the dealer's win);
- the player banker's account of a round and what the house keeps (:func:`banker_account`,
  :class:`BankerResult`; 6a.14, 1.2: the ruleset's commission on the banker's net win, with
  its lawful range, 6a.19).

What the games decide differently stays theirs and comes in as a parameter: how a hand
compares with the banker's (each game's ``compare``), and what the seats net on wagers the
house, not the banker, answers for (classic's Fortune and Progressive wagers and Envy
Bonuses, 6a.18). The commission is the ruleset's in both (classic 6a.1, tiles 6a.2).

No share, rounding or rate is a literal here: they come from the ``Ruleset``. Nothing here
does I/O.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING

from replay.document import DocumentError, seat_number
from replay.document import field as read_field
from replay.errors import MoneyError, RulesetError
from replay.games.results import BankerEntry, SettledWager, banker_entry, win_ranges

if TYPE_CHECKING:
    from replay.ruleset_model import Ruleset

DEALER = "dealer"
"""The ``banker`` value of a dealer-banked round (the default)."""

OPTION_CO_BANK_SHARE_BPS = "co_bank_share_bps"
"""Ruleset option: the co-banking player's share of the bank, in basis points (pai gow poker
procedure (11): "on a 50/50 basis and no other percentage will be permitted"; 58 Pa. Code § 621a.1,
docs/rules.md 1.2: "the bank and the dealer each cover 50%": 5000)."""

OPTION_CO_BANK_ROUNDING = "co_bank_rounding"
"""Ruleset option: how the co-banking player's share of an odd gross is rounded, a
:class:`ShareRounding` value (6a.14: toward zero)."""

OPTION_CO_BANK_ODD_CENT_EITHER_WAY = "co_bank_odd_cent_either_way"
"""Ruleset option (true/false): whether the odd cent of a co-bank that does not split evenly
may lawfully go to either party (docs/rules.md 6a.19: "half and half" names no rounding), so
that the co-banking player's share is lawful rounded toward zero or away from it. Absent,
false: only the share the ruleset's rounding gives is lawful (the stricter reading)."""

OPTION_NAMES = frozenset({OPTION_CO_BANK_SHARE_BPS, OPTION_CO_BANK_ROUNDING,
                          OPTION_CO_BANK_ODD_CENT_EITHER_WAY})
"""The ruleset options this module reads, for a game's ``RULES.option_names``."""

_BANKER_KEYS = frozenset({"seat", "co_bank"})
_BPS_WHOLE = 10_000


class ShareRounding(StrEnum):
    """How the co-banking player's share of the banker's gross is rounded to the cent."""

    TOWARD_ZERO = "toward_zero"
    """docs/rules.md 6a.14: half the gross rounded toward zero (an odd cent goes to the house
    whether the bank won or lost)."""
    AWAY_FROM_ZERO = "away_from_zero"
    """The odd cent goes to the co-banking player, won or lost."""


@dataclass(frozen=True, slots=True, kw_only=True)
class PlayerBanker:
    """The seat that banks a round instead of the dealer, and whether the house co-banks
    with it 50/50 (docs/rules.md 1.2, 6a.14; pai gow poker procedure (3), (5), (10), (11);
    58 Pa. Code § 621a.1 "Co-banking")."""

    seat: int
    co_bank: bool = False

    def __post_init__(self) -> None:
        if type(self.seat) is not int or self.seat < 1:
            raise DocumentError(f"banker seat must be a seat number from 1, got {self.seat!r}")
        if type(self.co_bank) is not bool:
            raise DocumentError(f"banker co_bank must be true or false, got {self.co_bank!r}")


def read_banker(value: object) -> PlayerBanker | None:
    """A round document's ``banker`` (README "Round documents"): None for ``"dealer"``, else the
    :class:`PlayerBanker` an object ``{"seat": 3, "co_bank": false}`` names (``co_bank``
    defaults to false). DocumentError names anything else, an unknown key, a missing or bad
    seat, a ``co_bank`` that is not true or false."""
    if value == DEALER:
        return None
    if not isinstance(value, Mapping):
        raise DocumentError(
            f"banker must be {DEALER!r} or an object like {{\"seat\": 3, \"co_bank\": false}}, "
            f"got {value!r}"
        )
    unknown = sorted(set(value) - _BANKER_KEYS)
    if unknown:
        raise DocumentError(f"banker has unknown keys {unknown}; allowed: {sorted(_BANKER_KEYS)}")
    return PlayerBanker(seat=seat_number(read_field(value, "seat", "banker"), "banker seat"),
                        co_bank=value.get("co_bank", False))


def co_bank_share(gross: int, ruleset: Ruleset) -> int:
    """The co-banking player's share of the banker's ``gross`` (pai gow poker procedure (11),
    58 Pa. Code § 621a.1: each covers 50%; docs/rules.md 6a.14: half, rounded toward zero),
    from the ruleset's :data:`OPTION_CO_BANK_SHARE_BPS` and :data:`OPTION_CO_BANK_ROUNDING`;
    ``gross`` less the share is the house's."""
    bps = _share_bps(ruleset)
    rounding = ruleset.option(OPTION_CO_BANK_ROUNDING)
    if rounding not in tuple(ShareRounding):
        raise RulesetError(
            f"ruleset {ruleset.id}: option {OPTION_CO_BANK_ROUNDING} must be one of "
            f"{[r.value for r in ShareRounding]}, got {rounding!r}"
        )
    return _share(gross, bps, ShareRounding(rounding))


def co_bank_shares(gross: int, ruleset: Ruleset) -> tuple[int, int]:
    """The lowest and highest lawful share of the co-banking player (docs/rules.md 6a.19):
    :func:`co_bank_share` both ends, unless the ruleset's
    :data:`OPTION_CO_BANK_ODD_CENT_EITHER_WAY` is true, when a gross that does not split
    evenly may give its odd cent to either party: 1001 -> (500, 501), -1001 -> (-501, -500)."""
    point = co_bank_share(gross, ruleset)
    either = ruleset.options.get(OPTION_CO_BANK_ODD_CENT_EITHER_WAY, False)
    if type(either) is not bool:
        raise RulesetError(
            f"ruleset {ruleset.id}: option {OPTION_CO_BANK_ODD_CENT_EITHER_WAY} must be true "
            f"or false, got {either!r}"
        )
    if not either:
        return point, point
    bps = _share_bps(ruleset)
    ends = (_share(gross, bps, ShareRounding.TOWARD_ZERO),
            _share(gross, bps, ShareRounding.AWAY_FROM_ZERO))
    return min(ends), max(ends)


def _share_bps(ruleset: Ruleset) -> int:
    bps = ruleset.option(OPTION_CO_BANK_SHARE_BPS)
    if type(bps) is not int or not 0 <= bps <= _BPS_WHOLE:
        raise RulesetError(
            f"ruleset {ruleset.id}: option {OPTION_CO_BANK_SHARE_BPS} must be an integer from 0 "
            f"to {_BPS_WHOLE}, got {bps!r}"
        )
    return bps


def _share(gross: int, bps: int, rounding: ShareRounding) -> int:
    whole, rest = divmod(abs(gross) * bps, _BPS_WHOLE)
    if rest and rounding == ShareRounding.AWAY_FROM_ZERO:
        whole += 1
    return whole if gross >= 0 else -whole


def dealer_wager_net(outcome: str, amount_cents: int) -> int:
    """The dealer's result on its own wager against a player banker (pai gow poker procedure (10);
    pai gow poker settlement (12); docs/rules.md 6a.14): ``outcome`` is ``"win"``, ``"loss"`` or
    ``"push"`` (each game's ``Outcome``) from the game's comparison of the dealer's hands with the
    banker's, copies to the banker. A win is paid 1:1 with no commission (the house pays none on the
    dealer's win), a loss loses the amount, a push returns it."""
    return {"win": amount_cents, "loss": -amount_cents, "push": 0}[outcome]


@dataclass(frozen=True, slots=True, kw_only=True)
class BankerResult:
    """A player banker's account of a round (docs/rules.md 6a.14, 1.2; pai gow poker
    settlement (13), (14)), every amount in cents:

    - ``gross``: minus the sum of the players' main-wager results before commission (a win
      +amount, a loss -amount, a push 0), minus the dealer's result;
    - ``share``: the banker seat's part of ``gross``: all of it, or when the house co-banks
      the ruleset's share (50/50, pai gow poker procedure (11)) rounded by the ruleset (toward
      zero); ``gross - share`` is the house's co-bank share;
    - ``commission``: the game's commission on a positive ``share`` (the "net win", 1.2; "the
      remainder ... paid to the player banker and the 5% commission is collected", pai gow
      poker settlement (14)), none on a loss;
    - ``net``: ``share - commission``, the banker seat's change of money on the main wagers;
    - ``dealer_net``: the dealer's own result against the banker (reported as ``dealer.net``
      too);
    - ``side_net``: what the seats (the banker seat among them) netted on wagers the house
      answers for whoever banks, plus any bonuses they received: in classic pai gow poker
      the Fortune and Progressive wagers and the Envy Bonuses (6a.14: the banker seat's side
      wagers "settle as for any seat"; 6a.18: as in Face Up, where the house is the
      counterparty), so the player banker's account never holds them; 0 in pai gow tiles;
    - ``house_net``: the house's whole result of the round, which is the sum of the players'
      commissions, the banker's commission, the house's co-bank share and ``dealer_net``,
      less ``side_net``;
    - ``net_range``, ``commission_range``: the lowest and highest lawful ``net`` and
      ``commission`` (6a.19: the commission's lawful range on each lawful share, and both
      shares of a co-bank's odd cent when the ruleset allows either); None when the point is
      the only lawful amount. ``house_net`` is the house's result under the point.

    Money is conserved: the seats' nets on every wager + their bonuses + ``net`` +
    ``house_net`` == 0 (every cent a player or the banker pays or receives comes from or goes
    to another of them or the house).
    """

    seat: int
    co_bank: bool
    gross: int
    share: int
    commission: int
    net: int
    house_net: int
    dealer_net: int
    side_net: int = 0
    net_range: tuple[int, int] | None = None
    commission_range: tuple[int, int] | None = None

    def __post_init__(self) -> None:
        for name in ("seat", "gross", "share", "commission", "net", "house_net", "dealer_net",
                     "side_net"):
            if type(getattr(self, name)) is not int:
                raise MoneyError(f"{name} must be integer cents, got {getattr(self, name)!r}")
        if self.commission < 0 or (self.share <= 0 and self.commission):
            raise MoneyError(
                f"banker commission {self.commission} on a share of {self.share}: commission is "
                f"taken only on a net win (docs/rules.md 6a.14)"
            )
        if self.net != self.share - self.commission:
            raise MoneyError(
                f"banker net {self.net} is not share {self.share} less commission "
                f"{self.commission}"
            )

    def as_dict(self) -> BankerEntry:
        """The result object's ``banker`` entry, with the lawful ranges when wider than the
        point."""
        return banker_entry(seat=self.seat, net=self.net, commission=self.commission,
                            house_net=self.house_net, net_range=self.net_range,
                            commission_range=self.commission_range)


def banker_account(
    *,
    banker: PlayerBanker,
    players: Iterable[SettledWager],
    dealer_net: int,
    ruleset: Ruleset,
    side_net: int = 0,
) -> BankerResult:
    """The player banker's account of a round (docs/rules.md 6a.14; pai gow poker settlement
    (13), (14)): ``players`` are the other seats' main-wager settlements (each winner has paid its
    own commission; the banker seat's own main wager is not among them), ``dealer_net`` the
    dealer's result on its own wager (:func:`dealer_wager_net`, 0 when it made none).

    The banker's gross is minus the players' results before commission, minus
    ``dealer_net``; its share is all of it, or :func:`co_bank_share` when the house co-banks;
    the ruleset's commission (classic 6a.1, tiles 6a.2) is taken on a positive share only.
    The lawful ranges (6a.19) run over every lawful share (:func:`co_bank_shares`) and the
    commission's lawful range on each. ``side_net`` is what the seats netted on wagers the
    house answers for (see :class:`BankerResult`), which the house's result, never the
    banker's, holds.
    """
    settled = tuple(players)
    gross = -sum(s.net_cents + s.commission_cents for s in settled) - dealer_net
    share = co_bank_share(gross, ruleset) if banker.co_bank else gross
    banker_commission = ruleset.commission.on(share) if share > 0 else 0
    players_commission = sum(s.commission_cents for s in settled)
    low, high = co_bank_shares(gross, ruleset) if banker.co_bank else (gross, gross)
    nets: list[int] = []
    commissions: list[int] = []
    for lawful_share in sorted({low, high}):
        if lawful_share > 0:
            (net_lo, net_hi), (com_lo, com_hi) = win_ranges(
                lawful_share, ruleset.commission.lawful(lawful_share))
        else:
            net_lo = net_hi = lawful_share
            com_lo = com_hi = 0
        nets += [net_lo, net_hi]
        commissions += [com_lo, com_hi]
    net = share - banker_commission
    net_range = (min(nets), max(nets))
    commission_range = (min(commissions), max(commissions))
    return BankerResult(
        seat=banker.seat, co_bank=banker.co_bank, gross=gross, share=share,
        commission=banker_commission, net=net,
        house_net=(players_commission + banker_commission + (gross - share) + dealer_net
                   - side_net),
        dealer_net=dealer_net, side_net=side_net,
        net_range=None if net_range == (net, net) else net_range,
        commission_range=(None if commission_range == (banker_commission, banker_commission)
                          else commission_range),
    )
