"""From a folded round to its judgement: one engine behind both front doors.

A round folded from the log (:class:`replay.fold.RoundState`) becomes the same round
document that ``python -m replay adjudicate`` reads (README "Round documents"), and is
judged by the same judge, found through the game registry: this module names no game.

Fail closed (docs/design.md principle 8, docs/rules.md): a round is *evaluated* only when the
judge judged it and every recorded wager has an expected settlement. A wager the judgement
does not cover, a round the judge cannot read (missing cards, an unknown banker, a ruleset
that is not in force), or a fact the fold could not place makes the round not evaluated,
with every reason. A voided round returns every wager (outcome ``void``, net 0). The
player banker's own main wager is the bank: it is settled by the banker's account
(docs/rules.md 6a.14), not as a wager against itself.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from replay.adjudicate import judge_document
from replay.errors import ReplayError
from replay.fold import DEALER, Problem, ProblemKind, RoundState
from replay.games import find_game
from replay.games.results import ResultObject, WagerEntry
from replay.rulebook import Rulebook, shipped_book
from replay.rulesets import Ruleset
from schemas.events import banker_words

PROGRESSIVE_PAYTABLE = "progressive"
"""The posted progressive paytable's name in every ruleset that has one (docs/rules.md 6)."""

_EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.UTC)


def dealt_at(state: RoundState) -> dt.datetime | None:
    """When the round started (from its RoundStarted event), in UTC."""
    if state.started_at_us is None:
        return None
    return _EPOCH + dt.timedelta(microseconds=state.started_at_us)


def banker_text(state: RoundState) -> str:
    """Who banks, in words: ``dealer``, ``seat 3`` or ``seat 3 co-bank``."""
    return banker_words(state.banker_seat, state.co_bank)


def ruleset_id(state: RoundState, book: Rulebook | None = None) -> str:
    """The ruleset the table named, else the one ``book`` (default: the shipped rulesets)
    says is in force for the round's casino and game on the day it was dealt
    (:meth:`replay.rulebook.Rulebook.in_force`), by the broker's time of its RoundStarted
    when the table's clock was skewed (``clock_at_us``, replay/clock.py); ReplayError when
    there is neither game nor date, or none is in force. A ruleset named is checked when the
    round is judged (:func:`replay.adjudicate.judge_document`: the casino's own or a shipped
    one)."""
    if state.ruleset is not None:
        return state.ruleset
    when = dealt_at(state) if state.clock_at_us is None else (
        _EPOCH + dt.timedelta(microseconds=state.clock_at_us))
    if state.game is None or when is None:
        raise ReplayError("the round never started: no game or date to choose a ruleset by")
    book = shipped_book() if book is None else book
    return book.in_force(state.casino, state.game, when.date()).id


def _holding(state: RoundState, seat: int, dealt: Mapping[int, tuple[str, ...]],
             sets: Mapping[int, tuple[tuple[str, ...], tuple[str, ...]]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    cards = dealt.get(seat)
    if cards is not None:
        out["tiles" if state.tiles else "cards"] = list(cards)
    hand = sets.get(seat)
    if hand is not None:
        out["high"], out["low"] = list(hand[0]), list(hand[1])
    return out


def round_document(state: RoundState, book: Rulebook | None = None, *,
                   ruleset: str | None = None) -> dict[str, Any]:
    """The round document of a folded round (README "Round documents"), naming ``ruleset``
    when given, else the one chosen from ``book`` (:func:`ruleset_id`); ReplayError when the
    round never started. What the
    document lacks (cards never dealt, a hand never set) is the judge's to report."""
    if state.game is None:
        raise ReplayError("the round never started (no RoundStarted event)")
    doc: dict[str, Any] = {"round_id": state.round_id, "game": state.game,
                           "ruleset": ruleset or ruleset_id(state, book)}
    if state.banker_seat is not None:
        doc["banker"] = {"seat": state.banker_seat, "co_bank": state.co_bank}
    if state.meter_cents is not None:
        doc["progressive_meter"] = state.meter_cents
    # each seat's first deal and setting (RoundState.cards, .hand_set), last action
    # (RoundState.action) and wagers, in the order placed
    dealt: dict[int, tuple[str, ...]] = {}
    for seat, tokens in state.dealt:
        dealt.setdefault(seat, tokens)
    sets: dict[int, tuple[tuple[str, ...], tuple[str, ...]]] = {}
    for seat, high, low in state.sets:
        sets.setdefault(seat, (high, low))
    actions = dict(state.actions)
    placed: dict[int, dict[str, int]] = {}
    for seat, wager, amount in state.wagers:
        placed.setdefault(seat, {})[wager] = amount
    dealer = _holding(state, DEALER, dealt, sets)
    for seat, wager, amount in state.wagers:
        if seat == DEALER and wager == "main":
            dealer["wager"] = amount
    doc["dealer"] = dealer
    seats = []
    for number in state.seats:
        entry: dict[str, Any] = {"seat": number, **_holding(state, number, dealt, sets)}
        action = actions.get(number)
        if action is not None:
            entry["action"] = action  # the document's actions are the events' words
        wagers = placed.get(number)
        if wagers:
            entry["wagers"] = wagers
        seats.append(entry)
    doc["seats"] = seats
    return doc


def _render_hand(holding: Mapping[str, Any], tiles: bool) -> str:
    sep = "," if tiles else ""
    dealt = sep.join(holding.get("tiles" if tiles else "cards", ()))
    if "high" not in holding:
        return dealt
    setting = f"{sep.join(holding['high'])}/{sep.join(holding['low'])}"
    together = sorted(holding["high"]) + sorted(holding["low"])
    same = sorted(together) == sorted(holding.get("tiles" if tiles else "cards", ()))
    return setting if same else f"{dealt}:{setting}"


def notation(doc: Mapping[str, Any]) -> str:
    """The round's one-line notation: ``<round_id> <game> [B=S<n>[co]]
    D=<hand>[(wager N)] S<seat>(<wagers>)[<action>]=<hand> ...``; cards concatenated
    (``AsKd``), tiles joined by commas (``6-6,1-3``), a set hand as ``<high>/<low>``."""
    tiles = "tiles" in doc["dealer"] or any("tiles" in s for s in doc["seats"])
    parts = [doc["round_id"], doc["game"]]
    banker = doc.get("banker")
    if isinstance(banker, Mapping):
        parts.append(f"B=S{banker['seat']}" + ("co" if banker.get("co_bank") else ""))
    if "progressive_meter" in doc:
        parts.append(f"M={doc['progressive_meter']}")
    dealer = doc["dealer"]
    wager = f"(main {dealer['wager']})" if "wager" in dealer else ""
    parts.append(f"D{wager}={_render_hand(dealer, tiles)}")
    for seat in doc["seats"]:
        wagers = ",".join(f"{k} {v}" for k, v in seat.get("wagers", {}).items())
        label = f"S{seat['seat']}" + (f"({wagers})" if wagers else "")
        if "action" in seat:
            label += f"[{seat['action']}]"
        parts.append(f"{label}={_render_hand(seat, tiles)}")
    return " ".join(parts)


@dataclass(frozen=True, slots=True, kw_only=True)
class Expected:
    """What the rules require for one wager: the house's default settlement (``net_cents``,
    ``commission_cents``) and the lawful range of each, both ends included (docs/rules.md
    6a.19; the result's ``net_range`` and ``commission_range``). A range not given is the
    point."""

    outcome: str
    net_cents: int
    commission_cents: int
    net_min_cents: int | None = None
    net_max_cents: int | None = None
    commission_min_cents: int | None = None
    commission_max_cents: int | None = None

    @property
    def net_range(self) -> tuple[int, int]:
        """The lowest and highest lawful net (the point when no range was given)."""
        return (self.net_cents if self.net_min_cents is None else self.net_min_cents,
                self.net_cents if self.net_max_cents is None else self.net_max_cents)

    @property
    def commission_range(self) -> tuple[int, int]:
        """The lowest and highest lawful commission (the point when no range was given)."""
        return (self.commission_cents if self.commission_min_cents is None
                else self.commission_min_cents,
                self.commission_cents if self.commission_max_cents is None
                else self.commission_max_cents)

    @classmethod
    def of(cls, entry: WagerEntry) -> Expected:
        """The expectation of a result's wager entry, its lawful ranges included."""
        net_lo, net_hi = entry.get("net_range", (entry["net"], entry["net"]))
        com_lo, com_hi = entry.get("commission_range",
                                   (entry["commission"], entry["commission"]))
        return cls(outcome=entry["outcome"], net_cents=entry["net"],
                   commission_cents=entry["commission"], net_min_cents=net_lo,
                   net_max_cents=net_hi, commission_min_cents=com_lo,
                   commission_max_cents=com_hi)


@dataclass(frozen=True, slots=True, kw_only=True)
class Judgement:
    """A folded round judged: the document it became, its notation, the ruleset, the
    judge's result object (None when it could not judge), the expected settlement of each
    wager keyed by (seat, wager) with the dealer as :data:`DEALER`, each seat's expected
    Envy Bonus, whether the round is evaluated, and every problem (the fold's and the
    judgement's)."""

    document: dict[str, Any] | None
    notation: str | None
    ruleset: str | None
    result: ResultObject | None
    expected: dict[tuple[int, str], Expected] = field(default_factory=dict)
    envy: dict[int, int] = field(default_factory=dict)
    evaluated: bool = False
    problems: tuple[Problem, ...] = ()


def _outcome_of(net: int) -> str:
    return "win" if net > 0 else "loss" if net < 0 else "push"


def judge_state(state: RoundState, book: Rulebook | None = None, *,
                ruleset: Ruleset | None = None) -> Judgement:
    """Judge one folded round through the game registry, failing closed, under the ruleset
    ``book`` (default: the shipped rulesets) gives for the round's casino (replay/rulebook.py):
    the one the table named, if it is the casino's or a shipped one, else the one in force;
    or under ``ruleset`` when given (a what-if: replay/whatif.py judges the same rounds under
    a proposed ruleset)."""
    problems = list(state.problems)

    def fail(kind: ProblemKind, text: str) -> None:
        problems.append(Problem(kind=kind, detail=text))

    try:
        doc = round_document(state, book, ruleset=None if ruleset is None else ruleset.id)
    except (ReplayError, ValueError, LookupError) as exc:
        fail(ProblemKind.NOT_JUDGEABLE, str(exc))
        return Judgement(document=None, notation=None, ruleset=None, result=None,
                         problems=tuple(problems))
    line = notation(doc)
    if state.voided is not None:
        returned = {(s, w): Expected(outcome="void", net_cents=0, commission_cents=0)
                    for s, w, _ in state.wagers}
        return Judgement(document=doc, notation=line, ruleset=doc["ruleset"], result=None,
                         expected=returned, evaluated=True, problems=tuple(problems))
    try:
        result = judge_document(doc, book, casino=state.casino, as_recorded=True,
                                ruleset=ruleset)
    except (ReplayError, ValueError, LookupError) as exc:
        fail(ProblemKind.NOT_JUDGEABLE, str(exc))
        return Judgement(document=doc, notation=line, ruleset=doc["ruleset"], result=None,
                         problems=tuple(problems))
    except Exception as exc:  # a fault of the engine, not of the round: fail closed, say so
        fail(ProblemKind.NOT_JUDGEABLE,
             f"the rules engine failed on this round ({type(exc).__name__}: {exc}); the round "
             f"is not evaluated: report it with the round's notation {line}")
        return Judgement(document=doc, notation=line, ruleset=doc["ruleset"], result=None,
                         problems=tuple(problems))
    for text in result.get("problems", ()):
        fail(ProblemKind.RULE_IRREGULARITY, str(text))
    expected: dict[tuple[int, str], Expected] = {}
    envy: dict[int, int] = {}
    for seat in result["seats"]:
        envy[seat["seat"]] = seat.get("envy", 0)
        for name, entry in seat["wagers"].items():
            expected[(seat["seat"], name)] = Expected.of(entry)
    dealer_wager = state.wager(DEALER, "main")
    if dealer_wager is not None and dealer_wager > 0 and state.banker_seat is not None:
        net = result["dealer"]["net"]
        expected[(DEALER, "main")] = Expected(outcome=_outcome_of(net), net_cents=net,
                                              commission_cents=0)
    banker_main = (state.banker_seat, "main") if "banker" in result else None
    limit = 1 << 63
    absurd = [f"{'dealer' if s == DEALER else f'seat {s}'} {w}" for (s, w), e in expected.items()
              if not -limit <= e.net_cents < limit]
    absurd += [f"seat {s} Envy Bonus" for s, v in envy.items() if not -limit <= v < limit]
    banker = result.get("banker")
    if banker is not None and not all(-limit <= banker[k] < limit
                                      for k in ("net", "commission", "house_net")):
        absurd.append("the banker's account")
    if absurd:
        fail(ProblemKind.NOT_JUDGEABLE,
             f"the expected settlement of {', '.join(absurd)} does not fit 64-bit cents: "
             f"the recorded amounts are absurd")
        return Judgement(document=doc, notation=line, ruleset=result.get("ruleset"),
                         result=None, problems=tuple(problems))
    unjudged = [(s, w, a) for s, w, a in state.wagers
                if (s, w) not in expected and (s, w) != banker_main]
    for s, w, a in unjudged:
        who = "dealer" if s == DEALER else f"seat {s}"
        fail(ProblemKind.NOT_JUDGED,
             f"{who} {w} wager of {a} cents has no expected settlement: not judged")
    if state.banker_settled is not None and state.banker_seat is None:
        unjudged.append((state.banker_settled[0], "bank", state.banker_settled[1]))
        fail(ProblemKind.NOT_JUDGED,
             f"a player banker's account was recorded for seat {state.banker_settled[0]} in "
             f"a round the dealer banked: not judged")
    if state.banker_seat is not None and "banker" not in result:
        fail(ProblemKind.NOT_JUDGED,
             f"the judgement has no account for the player banker at seat {state.banker_seat}")
    return Judgement(document=doc, notation=line, ruleset=result.get("ruleset"),
                     result=result, expected=expected, envy=envy,
                     evaluated=not unjudged and not (state.banker_seat is not None
                                                     and "banker" not in result),
                     problems=tuple(problems))


def judged_hand(state: RoundState, seat: int, ruleset: str | None,
                book: Rulebook | None = None) -> str | None:
    """The class the engine judges ``seat``'s dealt cards to be, as the progressive paytable
    of ``ruleset`` names it (``GameRules.paytable_class``: the seven-card class in the pai
    gow poker games, the poker class in Caribbean stud), whatever the table declared; None
    when the seat was dealt nothing, the game has no progressive, the ruleset is unknown, or
    the cards make no class. ``ruleset`` is looked up in ``book`` (default the shipped
    rulesets)."""
    cards = state.cards(seat)
    if state.game is None or ruleset is None or cards is None:
        return None
    book = shipped_book() if book is None else book
    try:
        classify = find_game(state.game).paytable_class
        loaded = book.find(ruleset)
    except (ReplayError, LookupError):
        return None
    return None if classify is None else classify(cards, loaded)


def progressive_classes(ruleset: str | None,
                        book: Rulebook | None = None) -> frozenset[str] | None:
    """The hand classes of ``ruleset``'s posted progressive paytable (looked up in ``book``,
    default the shipped rulesets); None when the ruleset is unknown (a ruleset without a
    progressive has none)."""
    if ruleset is None:
        return None
    book = shipped_book() if book is None else book
    try:
        return frozenset(book.find(ruleset).paytables.get(PROGRESSIVE_PAYTABLE, {}))
    except (ReplayError, LookupError):
        return None


def award_from_meter(ruleset: str | None, hand: str | None,
                     book: Rulebook | None = None) -> bool | None:
    """Whether the posted progressive award for the ``hand`` class (the class the engine
    judged, :func:`judged_hand`, never the one a table declared) is a share of the meter
    (58 Pa. Code § 688a.7(h)(3)(i)(B)(4): such an award is never paid from the table
    inventory); None when the ruleset (looked up in ``book``, default the shipped rulesets),
    its progressive paytable or the hand is unknown, or the hand wins no progressive award."""
    if ruleset is None or hand is None:
        return None
    book = shipped_book() if book is None else book
    try:
        line = book.find(ruleset).paytables.get(PROGRESSIVE_PAYTABLE, {}).get(hand)
    except (ReplayError, LookupError):
        return None
    return None if line is None else line.meter_bps is not None
