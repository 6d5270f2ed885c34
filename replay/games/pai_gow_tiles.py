"""Pai gow tiles: the judgement of a round (docs/rules.md 3, 6, 6a.2, 6a.14-6a.16;
PR pai gow tiles ¶ A to K).

What this module decides, each with the rule it implements:

- the judgement of a round document (:func:`read_document`, :func:`judge_round`,
  :func:`judge_document`; README "Round documents"), dealer-banked or
  player-banked: a withdrawn seat loses its wager (PR pai gow tiles ¶ F), a fouled hand or
  hands not set 2+2 lose it, the others are compared with the banker's and settled; who banks, the
  co-bank share, the dealer's wager against a player banker and the banker's account
  (:class:`BankerResult`) follow the rules classic pai gow poker shares (docs/rules.md 6a.14
  by analogy; 58 Pa. Code § 621a.1), in :mod:`replay.games.pai_gow_banking`, with this game's
  :func:`vigorish`.

The rules it applies have their own modules, whose public names are re-exported here: the
rank of a two-tile hand and the foul (:mod:`replay.games.tile_ranks`; 3.2, 3.3, 6a.15,
6a.16), the ways to set four tiles, the comparison with the banker and the settlement
(:mod:`replay.games.pai_gow_tiles_hands`; PR pai gow tiles ¶ H to K, 6a.2), the dealer's
house way and whether a setting conforms to it (:mod:`replay.games.pai_gow_tiles_house_way`;
PR pai gow tiles ¶ D).

No rate, rounding, share or amount is a literal here: the vigorish, its lawful range and
the co-bank share come from the ``Ruleset``. Nothing here does I/O.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from replay.document import (
    DocumentError,
    cents,
    mapping,
    round_header,
    seat_list,
    seat_number,
    wagers,
)
from replay.document import field as read_field
from replay.games.base import GameRules
from replay.games.house_way_text import UnknownHouseWayError
from replay.games.pai_gow_banking import DEALER as DEALER
from replay.games.pai_gow_banking import OPTION_CO_BANK_ROUNDING as OPTION_CO_BANK_ROUNDING
from replay.games.pai_gow_banking import OPTION_CO_BANK_SHARE_BPS as OPTION_CO_BANK_SHARE_BPS
from replay.games.pai_gow_banking import OPTION_NAMES as BANKING_OPTION_NAMES
from replay.games.pai_gow_banking import BankerResult as BankerResult
from replay.games.pai_gow_banking import PlayerBanker as PlayerBanker
from replay.games.pai_gow_banking import banker_account, dealer_wager_net, read_banker
from replay.games.pai_gow_banking import co_bank_share as co_bank_share
from replay.games.pai_gow_tiles_hands import HAND_SIZE as HAND_SIZE
from replay.games.pai_gow_tiles_hands import Setting as Setting
from replay.games.pai_gow_tiles_hands import Settlement as Settlement
from replay.games.pai_gow_tiles_hands import canonical as canonical
from replay.games.pai_gow_tiles_hands import compare as compare
from replay.games.pai_gow_tiles_hands import four_tile_hands as four_tile_hands
from replay.games.pai_gow_tiles_hands import lawful_vigorish as lawful_vigorish
from replay.games.pai_gow_tiles_hands import set_hands as set_hands
from replay.games.pai_gow_tiles_hands import settings as settings
from replay.games.pai_gow_tiles_hands import settle_main as settle_main
from replay.games.pai_gow_tiles_hands import vigorish as vigorish
from replay.games.pai_gow_tiles_house_way import HOUSE_WAY_PR_11_2_D as HOUSE_WAY_PR_11_2_D
from replay.games.pai_gow_tiles_house_way import HOUSE_WAYS as HOUSE_WAYS
from replay.games.pai_gow_tiles_house_way import NINE_EIGHT_SEVEN as NINE_EIGHT_SEVEN
from replay.games.pai_gow_tiles_house_way import HouseWay as HouseWay
from replay.games.pai_gow_tiles_house_way import HouseWayRule as HouseWayRule
from replay.games.pai_gow_tiles_house_way import HouseWaySetting as HouseWaySetting
from replay.games.pai_gow_tiles_house_way import allowed_settings as allowed_settings
from replay.games.pai_gow_tiles_house_way import dealer_setting
from replay.games.pai_gow_tiles_house_way import find_house_way as find_house_way
from replay.games.pai_gow_tiles_house_way import follows_house_way as follows_house_way
from replay.games.pai_gow_tiles_house_way import house_way_setting as house_way_setting
from replay.games.results import Outcome as Outcome
from replay.games.results import (
    ResultObject,
    dealer_entry,
    result_object,
    seat_entry,
    settled_entry,
)
from replay.games.tile_ranks import GEE_JOON_VALUES as GEE_JOON_VALUES
from replay.games.tile_ranks import GONG_PIPS as GONG_PIPS
from replay.games.tile_ranks import HAND_TILES as HAND_TILES
from replay.games.tile_ranks import PAIR_ORDER as PAIR_ORDER
from replay.games.tile_ranks import POINTS_BASE as POINTS_BASE
from replay.games.tile_ranks import SINGLE_TILE_ORDER as SINGLE_TILE_ORDER
from replay.games.tile_ranks import SUPREME_PAIR as SUPREME_PAIR
from replay.games.tile_ranks import WONG_GONG_TILES as WONG_GONG_TILES
from replay.games.tile_ranks import WONG_PIPS as WONG_PIPS
from replay.games.tile_ranks import HandClass as HandClass
from replay.games.tile_ranks import HandRank as HandRank
from replay.games.tile_ranks import describe_hand as describe_hand
from replay.games.tile_ranks import is_foul as is_foul
from replay.games.tile_ranks import rank_hand as rank_hand
from replay.games.tile_ranks import single_rank as single_rank
from replay.tiles import TILES_32, Tile, TileError, parse_tile, render_tiles
from schemas.vocabulary import GAME_WAGERS

if TYPE_CHECKING:
    from replay.ruleset_model import Ruleset

GAME = "pai_gow_tiles"
"""This module's game name, as in rounds, rulesets and events."""


# ---------------------------------------------------------------------------------------
# Round documents
# ---------------------------------------------------------------------------------------

MAIN = "main"
"""The one wager of pai gow tiles (PR pai gow tiles ¶ K)."""
PLAY = "play"
WITHDRAW = "withdraw"
"""PR pai gow tiles ¶ F: a player may withdraw after the dealer has set; the wager is
collected."""

_DOCUMENT_KEYS = frozenset(
    {"round_id", "game", "ruleset", "banker", "progressive_meter", "dealer", "seats"}
)

_DEALER_KEYS = frozenset({"tiles", "high", "low", "wager"})
_SEAT_KEYS = frozenset({"seat", "tiles", "high", "low", "action", "wagers"})
_WAGERS = frozenset(GAME_WAGERS[GAME])
_SET_KEYS = frozenset({"tiles", "high", "low"})


@dataclass(frozen=True, slots=True, kw_only=True)
class TilesHolding:
    """What a seat or the dealer held: ``tiles`` dealt (None for a withdrawn seat whose
    tiles were collected unseen, PR pai gow tiles ¶ F.2) and the hands as set (None when not
    set)."""

    who: str
    tiles: tuple[Tile, ...] | None
    high: tuple[Tile, ...] | None = None
    low: tuple[Tile, ...] | None = None

    @property
    def set_correctly(self) -> bool:
        """True when the hands were set 2+2 (PR pai gow tiles ¶ A: a high hand and a low hand,
        "una mano mayor y una mano menor", of two tiles each). Hands set otherwise from the tiles
        dealt (three and one, say) were not set correctly: a player's wager loses
        (docs/rules.md 6a.16 "a fouled tiles hand loses"; as 58 Pa. Code § 688a.7(f)(1)(iv)
        for the pai gow poker games), and the result reports a foul."""
        return (self.high is not None and self.low is not None
                and len(self.high) == HAND_TILES and len(self.low) == HAND_TILES)

    @property
    def setting(self) -> Setting | None:
        """The hands as set, or None when they were not set, or not set 2+2."""
        if self.high is None or self.low is None or not self.set_correctly:
            return None
        return set_hands(self.high, self.low)


@dataclass(frozen=True, slots=True, kw_only=True)
class TilesSeat:
    """A seat of a round document: its number, holding, action and wagers."""

    seat: int
    holding: TilesHolding
    action: str
    wagers: Mapping[str, int]

    def __post_init__(self) -> None:
        if self.action not in (PLAY, WITHDRAW):
            raise DocumentError(f"seat {self.seat} action must be 'play' or 'withdraw', "
                                f"got {self.action!r}")


@dataclass(frozen=True, slots=True, kw_only=True)
class TilesRound:
    """A pai gow tiles round document as values (seats in the document's order)."""

    round_id: str
    dealer: TilesHolding
    seats: tuple[TilesSeat, ...]
    banker: PlayerBanker | None = None
    dealer_wager_cents: int = 0


def read_tiles(value: object, where: str, *, count: int | None) -> tuple[Tile, ...]:
    """A list of tile tokens (``["6-6", "2-4"]``) of ``count`` tiles (None: any number);
    DocumentError names ``where``, the bad token and its place."""
    if isinstance(value, str | bytes) or not isinstance(value, Sequence):
        raise DocumentError(f"{where} must be a list of tiles like ['6-6', '2-4'], got {value!r}")
    out = []
    for i, token in enumerate(value):
        try:
            out.append(parse_tile(token))
        except TileError as exc:
            raise DocumentError(f"{where}[{i}]: {exc}") from None
    if count is not None and len(out) != count:
        raise DocumentError(f"{where} must hold {count} tiles, got {len(out)}: "
                            f"{render_tiles(out)!r}")
    return tuple(out)


def _holding(obj: Mapping[str, Any], who: str, *, tiles_required: bool) -> TilesHolding:
    tiles = None
    if tiles_required or not _SET_KEYS.isdisjoint(obj):
        tiles = read_tiles(read_field(obj, "tiles", who), f"{who} tiles", count=HAND_SIZE)
    if "high" not in obj and "low" not in obj:
        return TilesHolding(who=who, tiles=tiles)
    if "high" not in obj or "low" not in obj:
        missing = "high" if "high" not in obj else "low"
        raise DocumentError(f"{who} sets a hand without its {missing!r} hand")
    return TilesHolding(
        who=who, tiles=tiles,
        high=read_tiles(obj["high"], f"{who} high", count=None),
        low=read_tiles(obj["low"], f"{who} low", count=None),
    )


def _seat(value: object, index: int) -> TilesSeat:
    doc = mapping(value, f"seats[{index}]", _SEAT_KEYS)
    number = seat_number(read_field(doc, "seat", f"seats[{index}]"), f"seats[{index}].seat")
    who = f"seat {number}"
    action = doc.get("action", PLAY)
    if action not in (PLAY, WITHDRAW):
        raise DocumentError(
            f"{who} action {action!r}: a pai gow tiles seat plays ({PLAY!r}) or withdraws "
            f"({WITHDRAW!r}, PR pai gow tiles ¶ F)"
        )
    return TilesSeat(
        seat=number,
        holding=_holding(doc, who, tiles_required=action == PLAY),
        action=action,
        wagers=wagers(doc.get("wagers", {}), f"{who} wagers", _WAGERS),
    )


def _set_problems(h: TilesHolding, *, compared: bool = False) -> list[str]:
    """The problems of a holding's set hands: a tile set but not dealt, or set more times
    than dealt (then also the tiles dealt but not set, and the count of the hands). Hands
    set other than 2+2 from the tiles dealt are a fact of play, judged as not set correctly
    (:attr:`TilesHolding.set_correctly`), unless every seat is ``compared`` with them (the
    dealer's, a player banker's): those cannot be compared."""
    if h.tiles is None or h.high is None or h.low is None:
        return []
    dealt, used = Counter(h.tiles), Counter(h.high + h.low)
    problems = []
    for tile in canonical(used - dealt):
        if not dealt[tile]:
            problems.append(f"{h.who} set tile {tile} in a hand but was not dealt it "
                            f"(dealt {render_tiles(h.tiles)})")
        else:
            times = "time" if dealt[tile] == 1 else "times"
            problems.append(f"{h.who} set tile {tile} {used[tile]} times but was dealt it "
                            f"{dealt[tile]} {times} (dealt {render_tiles(h.tiles)})")
    if problems:
        problems += [
            f"{h.who} was dealt tile {tile} but did not set it (set "
            f"{render_tiles(h.high)} / {render_tiles(h.low)})"
            for tile in canonical(dealt - used)
        ]
    if not h.set_correctly and (compared or problems):
        why = (f": every seat's hands are compared with them, so they must be set "
               f"{HAND_TILES}+{HAND_TILES}" if compared else "")
        problems.append(f"{h.who} set {len(h.high)}+{len(h.low)} tiles, not "
                        f"{HAND_TILES}+{HAND_TILES} ({render_tiles(h.high)} / "
                        f"{render_tiles(h.low)}){why}")
    return problems


def read_document(doc: Mapping[str, Any], *, as_recorded: bool = False) -> TilesRound:
    """A pai gow tiles round document (README "Round documents") as a :class:`TilesRound`.

    DocumentError names the field and the bad value: a malformed document (not an object, a
    missing or unknown key, a value of the wrong type), an unknown tile token, other than
    four tiles dealt, a seat action other than ``play`` or ``withdraw``, a wager other than
    ``main``; and then, all at once: a set hand holding a tile not dealt (or
    more often than dealt: naming the seat and the tile), the dealer's or the banker seat's
    hands set other than 2+2 (every seat is compared with them), a tile dealt more times
    than the 32-tile set holds (two of each of 11 faces, one of 10: naming the tile and the
    seats; with ``as_recorded``, a round of the log, only within one holding: across
    parties it is judged as recorded, docs/rules.md 8.1), a seat number used twice, a hand
    with a main wager not set, a banker seat that is not at the table, withdraws or has not
    set its hand, a dealer wager in a dealer-banked round.

    A player's hands set other than 2+2 from the tiles dealt (three and one, say) are a fact
    of play, not bad input: they are read, and the judge has the wager lose
    (:attr:`TilesHolding.set_correctly`).
    """
    top, round_id = round_header(doc, GAME, _DOCUMENT_KEYS)
    if "progressive_meter" in top:
        cents(top["progressive_meter"], "progressive_meter")
    banker = read_banker(top.get("banker", DEALER))
    dealer_doc = mapping(read_field(top, "dealer", "the round document"), "dealer",
                         _DEALER_KEYS)
    dealer = _holding(dealer_doc, "dealer", tiles_required=True)
    dealer_wager = cents(dealer_doc.get("wager", 0), "dealer wager")
    seats = tuple(_seat(value, i) for i, value in enumerate(seat_list(top)))

    problems: list[str] = []
    if dealer.high is None:
        problems.append("the dealer's hand was not set (PR pai gow tiles ¶ C: the dealer sets "
                        "a high and a low hand)")
    numbers = Counter(seat.seat for seat in seats)
    problems += [f"seat {n} appears {k} times" for n, k in sorted(numbers.items()) if k > 1]
    banker_seat = banker.seat if banker is not None else None
    if banker is None and dealer_wager:
        problems.append(f"dealer wager {dealer_wager}: the dealer wagers only against a "
                        f"player banker (docs/rules.md 6a.14); this round is dealer-banked")
    if banker_seat is not None and banker_seat not in numbers:
        problems.append(f"banker seat {banker_seat} is not at the table (seats "
                        f"{', '.join(str(s.seat) for s in seats) or 'none'})")
    for seat in seats:
        who = seat.holding.who
        if seat.seat == banker_seat and seat.action == WITHDRAW:
            problems.append(f"{who} banks the round and cannot withdraw")
        elif seat.holding.high is None and seat.action == PLAY and (
            seat.seat == banker_seat or seat.wagers.get(MAIN, 0) > 0
        ):
            problems.append(f"{who} plays " + ("as the banker" if seat.seat == banker_seat
                                               else f"a main wager of {seat.wagers[MAIN]}")
                            + " but its hand was not set (no 'high' and 'low')")
    problems += _set_problems(dealer, compared=True)
    for seat in seats:
        problems += _set_problems(seat.holding, compared=seat.seat == banker_seat)
    dealt_by: dict[Tile, list[str]] = {}
    for holding in (dealer, *(seat.holding for seat in seats)):
        for tile in holding.tiles or ():
            dealt_by.setdefault(tile, []).append(holding.who)
    problems += [
        f"tile {tile} is dealt {len(places)} times ({', '.join(places)}); the set holds "
        f"{tile.copies}"
        for tile, places in sorted(dealt_by.items(), key=lambda item: item[0].index)
        if len(places) > tile.copies
        and not (as_recorded and max(map(places.count, places)) <= tile.copies)
    ]
    if problems:
        raise DocumentError("; ".join(problems))
    return TilesRound(round_id=round_id, dealer=dealer, seats=seats, banker=banker,
                      dealer_wager_cents=dealer_wager)


@dataclass(frozen=True, slots=True, kw_only=True)
class DealerResult:
    """The dealer's hand as set: ``foul`` (reported, and compared as set: docs/rules.md
    6a.7), whether it follows the house way, and what the house way sets."""

    setting: Setting
    foul: bool
    house_way: bool
    house_way_setting: HouseWaySetting


@dataclass(frozen=True, slots=True, kw_only=True)
class SeatResult:
    """A seat's judgement: ``foul`` (None when its hands were not set or not shown: a
    withdrawn seat's tiles are collected unseen, PR pai gow tiles ¶ F.2; True too when they
    were not set 2+2, ``setting`` then None) and the main wager's
    :class:`Settlement` (None when there is none or it is zero, 6a.18, or when the seat
    banks, 6a.14)."""

    seat: int
    foul: bool | None
    main: Settlement | None
    setting: Setting | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class TilesJudgement:
    """The judgement of a round document; :meth:`as_dict` is the result object
    (replay/games/results.py)."""

    round_id: str
    ruleset_id: str
    dealer: DealerResult
    dealer_main: Settlement | None
    seats: tuple[SeatResult, ...]
    banker: BankerResult | None

    def as_dict(self) -> ResultObject:
        """The result object, keys in the order the README's result object gives them; seats
        by seat number; wagers of zero or absent, and the banker seat's own, left out
        (6a.18, 6a.14)."""
        return result_object(
            round_id=self.round_id, ruleset_id=self.ruleset_id,
            dealer=dealer_entry(foul=self.dealer.foul, house_way=self.dealer.house_way,
                                net=self.dealer_main.net_cents if self.dealer_main else 0),
            seats=[seat_entry(seat.seat, seat.foul,
                              {} if seat.main is None else {MAIN: settled_entry(seat.main)})
                   for seat in self.seats],
            banker=self.banker.as_dict() if self.banker else None,
        )


def judge_round(round: TilesRound, ruleset: Ruleset) -> TilesJudgement:
    """Judge a round read by :func:`read_document` under ``ruleset``.

    The banker's hands are the dealer's, or the banker seat's in a player-banked round
    (docs/rules.md 6a.14 by analogy). Each other seat's main wager: a withdrawn seat loses it
    (PR pai gow tiles ¶ F.1: the dealer collects it at once; 6a.16); a fouled hand loses (6a.16),
    and so do hands not set 2+2 (:attr:`TilesHolding.set_correctly`), reported as a foul; otherwise
    :func:`compare` (PR pai gow tiles ¶ H, I, J) and :func:`settle_main` (¶ K: 1:1 less the
    ruleset's vigorish, paid by each winner). The dealer's hand is reported as a foul or not and
    compared as set (6a.7), and checked against the ruleset's house way (PR pai gow tiles ¶ D).

    Against a player banker the dealer plays its own wager with the same comparison (copies
    to the banker, a zero low hand never wins) and pays no vigorish on a win
    (:func:`~replay.games.pai_gow_banking.dealer_wager_net`); the banker's account is
    :func:`~replay.games.pai_gow_banking.banker_account` with :func:`vigorish` on a positive
    share (6a.14) and its lawful range (6a.19).
    """
    if ruleset.game != GAME:
        raise DocumentError(f"ruleset {ruleset.id} is for game {ruleset.game!r}, not {GAME!r}")
    try:
        way = find_house_way(ruleset)
    except UnknownHouseWayError as exc:
        raise DocumentError(str(exc)) from None
    d = round.dealer
    assert d.tiles is not None and d.high is not None and d.low is not None
    dealer_setting = set_hands(d.high, d.low)
    dealer = DealerResult(
        setting=dealer_setting, foul=dealer_setting.foul,
        house_way=follows_house_way(d.tiles, d.high, d.low, way=way),
        house_way_setting=house_way_setting(d.tiles, way=way),
    )
    banker_seat = round.banker.seat if round.banker is not None else None
    banker_setting = dealer_setting
    for seat in round.seats:
        if seat.seat == banker_seat:
            found = seat.holding.setting
            assert found is not None
            banker_setting = found

    def outcome(setting: Setting) -> Outcome:
        if setting.foul:
            return Outcome.LOSS
        return compare(player_high=setting.high_rank, player_low=setting.low_rank,
                       banker_high=banker_setting.high_rank, banker_low=banker_setting.low_rank)

    results = []
    for seat in sorted(round.seats, key=lambda s: s.seat):
        amount = seat.wagers.get(MAIN, 0)
        if seat.action == WITHDRAW:
            main = None if amount == 0 else settle_main(
                amount_cents=amount, outcome=Outcome.LOSS, ruleset=ruleset)
            results.append(SeatResult(seat=seat.seat, foul=None, main=main))
            continue
        if seat.holding.high is not None and not seat.holding.set_correctly:
            # not set 2+2 (never the banker's: read_document): the wager loses, as a foul
            main = None if amount == 0 or seat.seat == banker_seat else settle_main(
                amount_cents=amount, outcome=Outcome.LOSS, ruleset=ruleset)
            results.append(SeatResult(seat=seat.seat, foul=True, main=main))
            continue
        setting = seat.holding.setting
        if setting is None:
            results.append(SeatResult(seat=seat.seat, foul=None, main=None))
            continue
        main = None
        if amount > 0 and seat.seat != banker_seat:
            main = settle_main(amount_cents=amount, outcome=outcome(setting), ruleset=ruleset)
        results.append(SeatResult(seat=seat.seat, foul=setting.foul, main=main,
                                  setting=setting))
    dealer_main = None
    banker = None
    if round.banker is not None:
        if round.dealer_wager_cents:
            result = compare(player_high=dealer_setting.high_rank,
                             player_low=dealer_setting.low_rank,
                             banker_high=banker_setting.high_rank,
                             banker_low=banker_setting.low_rank)
            dealer_main = Settlement(
                outcome=result, net_cents=dealer_wager_net(result, round.dealer_wager_cents),
                commission_cents=0,
            )
        banker = banker_account(
            banker=round.banker, players=[s.main for s in results if s.main is not None],
            dealer_net=dealer_main.net_cents if dealer_main else 0, ruleset=ruleset,
        )
    return TilesJudgement(round_id=round.round_id, ruleset_id=ruleset.id, dealer=dealer,
                          dealer_main=dealer_main, seats=tuple(results), banker=banker)


def judge_document(doc: Mapping[str, Any], ruleset: Ruleset, *,
                   as_recorded: bool = False) -> ResultObject:
    """The result object for a pai gow tiles round document: :func:`read_document`,
    then :func:`judge_round`, as :meth:`TilesJudgement.as_dict`."""
    return judge_round(read_document(doc, as_recorded=as_recorded), ruleset).as_dict()



RULES = GameRules(
    name=GAME,
    title="Pai gow tiles (house way, withdrawal, vigorish rounded to 25 cents)",
    deck=TILES_32,
    citation="docs/rules.md 3, 6, 6a.2, 6a.14-6a.16; PR pai gow tiles ¶ A to K",
    judge_document=judge_document,
    option_names=BANKING_OPTION_NAMES,
    house_ways=frozenset(HOUSE_WAYS),
    dealer_setting=dealer_setting,
    describe_hand=describe_hand,
)
