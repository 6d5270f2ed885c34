"""Why each hand won or lost against the banker's, in plain words with the rule that decided it.

For a dispute report (replay/dispute.py): each party's hand of a judged round, compared with
the banker's by the rules engine's own ranks and comparison (``replay.games``: the poker
ranks, ``compare`` of each pai gow game, the tiles' ranks, Caribbean stud's qualification),
and said in words: "high hand: straight, 9 high beats two pair, kings and fives; low hand:
K-Q ties K-Q, a copy goes to the banker: neither hand is higher, the wager loses (pai gow poker
settlement (5), (6); docs/rules.md 1.1)". The dealer's hand is checked against the house way
the ruleset names, and the house way's own setting is given.

The result is the rules engine's judgement as replay wrote it (``wagers.parquet``
``expected_outcome`` of the hand's wager); the words explain it. Fail closed: a round that
was not evaluated gets no result, and words that would disagree with the engine say so.
Each game's words are found through :data:`EXPLAIN`, keyed by the game modules' names.
Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from replay.cards import Card, parse_card
from replay.errors import ReplayError
from replay.games import caribbean_stud, face_up_pai_gow, pai_gow_poker, pai_gow_tiles
from replay.games import pai_gow_house_way as poker_way
from replay.games import pai_gow_tiles_house_way as tiles_way
from replay.games.house_way_text import UnknownHouseWayError
from replay.games.poker_ranks import high_holds_low, rank_high, rank_low
from replay.games.results import Outcome
from replay.games.seven_card_classes import is_ace_high_pai_gow
from replay.games.tile_ranks import rank_hand as rank_tiles
from replay.rulesets import Ruleset
from replay.tiles import parse_tile

RESULT_WORDS = {"win": "wins", "loss": "loses", "push": "pushes", "void": "void"}
"""A wager's outcome as a hand's result against the banker's hand."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Holding:
    """One party's hand as replay wrote it (``hands.parquet``): position (``dealer``,
    ``seat 3``), seat, the tokens dealt and as set, the decision."""

    position: str
    seat: int | None
    cards: tuple[str, ...]
    high: tuple[str, ...]
    low: tuple[str, ...]
    action: str | None
    house_way: bool | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class Verdict:
    """A hand's result against the banker's (``wins``, ``loses``, ``pushes``, ``folded``,
    ``banks`` ...; None when there is none to give) and why, in words with the rule; for the
    dealer, the house way's setting (empty when there is none)."""

    result: str | None
    why: str | None
    house_way_high: tuple[str, ...] = ()
    house_way_low: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True, kw_only=True)
class Table:
    """What the words of a round need: the ruleset, the holdings, who banks (a seat, or
    None for the dealer) and the engine's outcome of each party's deciding wager (keyed by
    seat, None for the dealer)."""

    ruleset: Ruleset
    holdings: Mapping[int | None, Holding]
    banker_seat: int | None
    outcomes: Mapping[int | None, str | None]


Explain = Callable[[Table], dict[int | None, Verdict]]


def _cards(tokens: Sequence[str]) -> list[Card]:
    return [parse_card(t) for t in tokens]


def _versus(which: str, mine: Any, theirs: Any, mine_words: str, their_words: str) -> str:
    if mine > theirs:
        return f"{which}: {mine_words} beats {their_words}"
    if mine < theirs:
        return f"{which}: {mine_words} loses to {their_words}"
    return f"{which}: {mine_words} ties {their_words}, a copy goes to the banker"


def _conclusion(outcome: Outcome, copies: bool) -> str:
    if outcome is Outcome.WIN:
        return "both hands are higher, the wager wins"
    if outcome is Outcome.PUSH:
        return "one hand is higher and the other is not, a push"
    if copies:
        return "neither hand is higher (copies go to the banker), the wager loses"
    return "both hands are lower, the wager loses"


def _judged(words: str, mine: Outcome, engine: str | None) -> Verdict:
    """The verdict: the engine's outcome as the result, the words as why; words that reach
    another outcome than the engine's say so (never a silent disagreement)."""
    if engine is not None and engine != mine.value:
        return Verdict(result=RESULT_WORDS.get(engine, engine),
                       why=f"{words} [the rules engine judged this wager {engine}, not "
                           f"{mine.value}: report this round]")
    return Verdict(result=RESULT_WORDS[mine.value], why=words)


# --- pai gow poker, classic and Face Up -------------------------------------------------

_CLASSIC_CITE = {Outcome.WIN: "pai gow poker settlement (1), (2); docs/rules.md 1.1",
                 Outcome.PUSH: "pai gow poker settlement (9); docs/rules.md 1.1",
                 Outcome.LOSS: "pai gow poker settlement (5), (6); docs/rules.md 1.1"}


def _face_up_cite(outcome: Outcome, high: int, low: int) -> str:
    if outcome is Outcome.WIN:
        clause = "(f)(3)"
    elif outcome is Outcome.PUSH:
        clause = "(f)(2)(i)" if high > 0 else "(f)(2)(ii)"
    else:
        clause = "(f)(1)(ii)" if 0 in (high, low) else "(f)(1)(i)"
    return f"58 Pa. Code § 688a.7{clause}; docs/rules.md 2.2"


def _sign(a: Any, b: Any) -> int:
    return 1 if a > b else -1 if a < b else 0


def _found(find: Callable[[Ruleset], object], t: Table) -> object:
    """The house way the table's ruleset names, or None when it names none known (then the
    reconstruction shows no house-way setting, as the judge did not evaluate by one)."""
    try:
        return find(t.ruleset)
    except UnknownHouseWayError:
        return None


def _poker_house_way(t: Table, dealer: Holding, cite: str) -> Verdict:
    way = _found(poker_way.find_house_way, t)
    if not isinstance(way, poker_way.HouseWay) or len(dealer.cards) != pai_gow_poker.HAND_SIZE:
        return Verdict(result=None, why=None)
    setting = poker_way.house_way_setting(_cards(dealer.cards), wheel=t.ruleset.wheel, way=way)
    high, low = tuple(map(str, setting.high)), tuple(map(str, setting.low))
    rule = (f"the house way {way.name} (rule {setting.rule.name}, {setting.rule.clause}) sets "
            f"high {' '.join(high)}, low {' '.join(low)}")
    rule += "".join(f"; also lawful: high {' '.join(map(str, h))}, low {' '.join(map(str, lo))}"
                    for h, lo in setting.others)
    if dealer.house_way is True:
        words = f"set by the house way: {rule} ({cite})"
    elif dealer.house_way is False:
        words = f"NOT set by the house way: {rule} ({cite})"
    else:
        words = f"{rule} ({cite})"
    return Verdict(result=None, why=words, house_way_high=high, house_way_low=low)


def _poker(t: Table, face_up: bool) -> dict[int | None, Verdict]:
    wheel = t.ruleset.wheel
    way_cite = ("58 Pa. Code § 688a.7(b); docs/rules.md 1.3" if face_up
                else "pai gow poker procedure (4); docs/rules.md 1.3")
    out: dict[int | None, Verdict] = {}
    banker = t.holdings.get(t.banker_seat)
    dealer = t.holdings.get(None)
    ranks = None
    if banker is not None and len(banker.high) == 5 and len(banker.low) == 2:
        ranks = (rank_high(_cards(banker.high), wheel=wheel), rank_low(_cards(banker.low)))
    ace_high = (face_up and dealer is not None and len(dealer.cards) == 7
                and is_ace_high_pai_gow(_cards(dealer.cards)))
    for seat, h in t.holdings.items():
        house = _poker_house_way(t, h, way_cite) if seat is None else None
        if seat == t.banker_seat:
            verdict = _poker_banker(h, seat, wheel, ace_high)
        else:
            verdict = _poker_hand(h, ranks, t.outcomes.get(seat), wheel, face_up, ace_high,
                                  "the dealer's own wager against the player banker "
                                  "(pai gow poker procedure (10); docs/rules.md 6a.14): "
                                  if seat is None else "")
        if house is not None:
            why = "; ".join(w for w in (verdict.why, house.why) if w) or None
            verdict = Verdict(result=verdict.result, why=why,
                              house_way_high=house.house_way_high,
                              house_way_low=house.house_way_low)
        out[seat] = verdict
    return out


def _poker_banker(h: Holding, seat: int | None, wheel: Any, ace_high: bool) -> Verdict:
    """The banker's own hand: who banks, and a foul reported (compared as set: 6a.7)."""
    words = [] if seat is None else [
        "the player banker: every other hand is compared with this one; its account is "
        "settled apart (docs/rules.md 6a.14)"]
    if len(h.high) == 5 and len(h.low) == 2:
        high, low = rank_high(_cards(h.high), wheel=wheel), rank_low(_cards(h.low))
        if not high_holds_low(high, low):
            words.append(f"the banker's hand is a foul (the high hand, {high.describe()}, ranks "
                         f"below the low hand, {low.describe()}): reported, and every hand is "
                         "compared with it as set (docs/rules.md 6a.7)")
    if ace_high:
        words.append("an Ace High Pai Gow: every Face Up wager ties (58 Pa. Code § "
                     "688a.7(f)(2)(iii); docs/rules.md 6a.8)")
    return Verdict(result=None if seat is None else "banks", why="; ".join(words) or None)


def _poker_hand(h: Holding, banker: tuple[Any, Any] | None, engine: str | None, wheel: Any,
                face_up: bool, ace_high: bool, lead: str) -> Verdict:
    if not h.high and not h.low:
        return Verdict(result=None, why=f"{lead}the hand was never set: nothing to compare")
    if len(h.high) != 5 or len(h.low) != 2:
        return _judged(f"{lead}not set 5 and 2: the hand was not otherwise set correctly, the "
                       "wager loses (58 Pa. Code § 688a.7(f)(1)(iv))", Outcome.LOSS, engine)
    high, low = rank_high(_cards(h.high), wheel=wheel), rank_low(_cards(h.low))
    if not high_holds_low(high, low):
        return _judged(f"{lead}foul: the high hand ({high.describe()}) ranks below the low "
                       f"hand ({low.describe()}), the wager loses (58 Pa. Code § "
                       f"688a.7(f)(1)(iii); docs/rules.md 6a.5, 6a.6)", Outcome.LOSS, engine)
    if ace_high:
        return _judged(f"{lead}the dealer holds an Ace High Pai Gow: every Face Up wager ties "
                       "(58 Pa. Code § 688a.7(f)(2)(iii); docs/rules.md 6)", Outcome.PUSH, engine)
    if banker is None:
        return Verdict(result=None, why=f"{lead}the banker's hand cannot be compared (not set "
                                        "5 and 2)")
    b_high, b_low = banker
    outcome = pai_gow_poker.compare(player_high=high, player_low=low, banker_high=b_high,
                                    banker_low=b_low)
    s_high, s_low = _sign(high, b_high), _sign(low, b_low)
    cite = (_face_up_cite(outcome, s_high, s_low) if face_up else _CLASSIC_CITE[outcome])
    words = (f"{lead}{_versus('high hand', high, b_high, high.describe(), b_high.describe())}; "
             f"{_versus('low hand', low, b_low, low.describe(), b_low.describe())}: "
             f"{_conclusion(outcome, 0 in (s_high, s_low))} ({cite})")
    return _judged(words, outcome, engine)


# --- pai gow tiles ----------------------------------------------------------------------

_TILES_CITE = {Outcome.WIN: "PR pai gow tiles ¶ J; docs/rules.md 3.3",
               Outcome.PUSH: "PR pai gow tiles ¶ I; docs/rules.md 3.3, 6a.16",
               Outcome.LOSS: "PR pai gow tiles ¶ H; docs/rules.md 3.3, 6a.16"}


def _tiles(t: Table) -> dict[int | None, Verdict]:
    out: dict[int | None, Verdict] = {}
    banker = t.holdings.get(t.banker_seat)
    ranks = None
    if banker is not None and len(banker.high) == 2 and len(banker.low) == 2:
        ranks = (rank_tiles([parse_tile(x) for x in banker.high]),
                 rank_tiles([parse_tile(x) for x in banker.low]))
    for seat, h in t.holdings.items():
        if seat == t.banker_seat:
            verdict = _tiles_banker(h, seat)
        else:
            verdict = _tiles_hand(h, ranks, t.outcomes.get(seat),
                                  "the dealer's own wager against the player banker "
                                  "(docs/rules.md 6a.14): " if seat is None else "")
        if seat is None:
            verdict = _with_tiles_way(t, h, verdict)
        out[seat] = verdict
    return out


def _tiles_banker(h: Holding, seat: int | None) -> Verdict:
    """The banker's own hand: who banks, and a foul reported (compared as set: 6a.7)."""
    words = [] if seat is None else [
        "the player banker: every other hand is compared with this one; its account is "
        "settled apart (docs/rules.md 6a.14)"]
    if len(h.high) == 2 and len(h.low) == 2:
        high = rank_tiles([parse_tile(x) for x in h.high])
        low = rank_tiles([parse_tile(x) for x in h.low])
        if high < low:
            words.append(f"the banker's hand is a foul (the high hand, {high.describe()}, ranks "
                         f"below the low hand, {low.describe()}): reported, and every hand is "
                         "compared with it as set (docs/rules.md 6a.7)")
    return Verdict(result=None if seat is None else "banks", why="; ".join(words) or None)


def _tiles_hand(h: Holding, banker: tuple[Any, Any] | None, engine: str | None,
                lead: str) -> Verdict:
    if h.action == "withdraw":
        return _judged(f"{lead}withdrew after the dealer set: the wager is lost (PR pai gow "
                       "tiles ¶ F; docs/rules.md 6a.16)", Outcome.LOSS, engine)
    if not h.high and not h.low:
        return Verdict(result=None, why=f"{lead}the hand was never set: nothing to compare")
    if len(h.high) != 2 or len(h.low) != 2:
        return _judged(f"{lead}not set 2 and 2: the wager loses (docs/rules.md 6a.16)",
                       Outcome.LOSS, engine)
    high = rank_tiles([parse_tile(x) for x in h.high])
    low = rank_tiles([parse_tile(x) for x in h.low])
    if high < low:
        return _judged(f"{lead}foul: the high hand ({high.describe()}) ranks below the low "
                       f"hand ({low.describe()}), the wager loses (docs/rules.md 6a.16)",
                       Outcome.LOSS, engine)
    if banker is None:
        return Verdict(result=None, why=f"{lead}the banker's hand cannot be compared (not set "
                                        "2 and 2)")
    b_high, b_low = banker
    outcome = pai_gow_tiles.compare(player_high=high, player_low=low, banker_high=b_high,
                                    banker_low=b_low)
    low_words = (f"low hand: {low.describe()} never wins (a player's low hand of value zero; "
                 "PR pai gow tiles ¶ H, I; docs/rules.md 6a.16)" if low.is_zero
                 else _versus("low hand", low, b_low, low.describe(), b_low.describe()))
    copies = high == b_high or low == b_low or low.is_zero
    words = (f"{lead}{_versus('high hand', high, b_high, high.describe(), b_high.describe())}; "
             f"{low_words}: {_conclusion(outcome, copies)} ({_TILES_CITE[outcome]})")
    return _judged(words, outcome, engine)


def _with_tiles_way(t: Table, dealer: Holding, verdict: Verdict) -> Verdict:
    way = _found(tiles_way.find_house_way, t)
    if not isinstance(way, tiles_way.HouseWay) or len(dealer.cards) != pai_gow_tiles.HAND_SIZE:
        return verdict
    chosen = tiles_way.house_way_setting([parse_tile(x) for x in dealer.cards], way=way)
    high = tuple(map(str, chosen.setting.high))
    low = tuple(map(str, chosen.setting.low))
    rule = (f"the house way {way.name} (rule {chosen.rule.name}, {chosen.rule.clause}) sets "
            f"high {' '.join(high)}, low {' '.join(low)}")
    cite = "PR pai gow tiles ¶ D; docs/rules.md 3.4"
    said = ("" if dealer.house_way is None else "set by the house way: " if dealer.house_way
            else "NOT set by the house way: ")
    words = f"{said}{rule} ({cite})"
    why = "; ".join(w for w in (verdict.why, words) if w)
    return Verdict(result=verdict.result, why=why, house_way_high=high, house_way_low=low)


# --- Caribbean stud ---------------------------------------------------------------------


def _caribbean(t: Table) -> dict[int | None, Verdict]:
    rs = t.ruleset
    out: dict[int | None, Verdict] = {}
    dealer = t.holdings.get(None)
    d_rank = None
    if dealer is not None and len(dealer.cards) == caribbean_stud.HAND_SIZE:
        d_rank = caribbean_stud.rank_hand(_cards(dealer.cards), wheel=rs.wheel)
    qualifies = d_rank is not None and caribbean_stud.dealer_qualifies(d_rank, rs)
    lowest = caribbean_stud.lowest_qualifying_rank(rs).describe()
    for seat, h in t.holdings.items():
        if seat is None:
            if d_rank is None:
                out[seat] = Verdict(result=None, why="the dealer's hand cannot be read")
                continue
            out[seat] = Verdict(
                result="qualifies" if qualifies else "does not qualify",
                why=(f"the dealer's {d_rank.describe()} "
                     f"{'qualifies' if qualifies else 'does not qualify'}: ace-king or better "
                     f"qualifies, the lowest being {lowest} (Caribbean stud rule 9.1; "
                     "docs/rules.md 4.2)"))
            continue
        out[seat] = _caribbean_hand(h, d_rank, qualifies, t.outcomes.get(seat), rs)
    return out


def _caribbean_hand(h: Holding, d_rank: Any, qualifies: bool, engine: str | None,
                    rs: Ruleset) -> Verdict:
    if h.action == "fold":
        return Verdict(result="folded", why=(
            "folded before the dealer's hand was exposed: the ante is lost and no raise is "
            "made (docs/rules.md 4.2, 6a.17)"))
    if h.action == "concede":
        return Verdict(result="conceded", why=(
            "conceded after the dealer's hand was exposed: the ante and the raise are lost "
            "(Caribbean stud rule 9.7; docs/rules.md 6a.17)"))
    if len(h.cards) != caribbean_stud.HAND_SIZE or d_rank is None:
        return Verdict(result=None, why="the hands cannot be compared (not five cards each)")
    mine = caribbean_stud.rank_hand(_cards(h.cards), wheel=rs.wheel)
    if not qualifies:
        return _judged(f"the dealer's {d_rank.describe()} does not qualify (ace-king or better "
                       "needed): the ante wins even money and the raise is void (Caribbean "
                       "stud rules 9.1, 9.2, 9.3.1; docs/rules.md 6a.17)", Outcome.WIN, engine)
    if mine > d_rank:
        line = caribbean_stud.hand_class(mine).replace("_", " ")
        return _judged(f"{mine.describe()} beats the dealer's {d_rank.describe()}: the ante "
                       f"wins even money and the raise is paid on the {line} line of the raise "
                       "paytable (Caribbean stud rule 9.4.1.1; docs/rules.md 4.2)",
                       Outcome.WIN, engine)
    if mine < d_rank:
        return _judged(f"{mine.describe()} loses to the dealer's {d_rank.describe()}: the ante "
                       "and the raise lose (Caribbean stud rule 9.4.1.2)", Outcome.LOSS, engine)
    return _judged(f"{mine.describe()} ties the dealer's {d_rank.describe()}: a stand off on the "
                   "ante and the raise (Caribbean stud rule 9.4.1.3; suits never break a tie, "
                   "docs/rules.md 6a.4)", Outcome.PUSH, engine)


HOUSE_WAY_GAMES = frozenset({pai_gow_poker.GAME, face_up_pai_gow.GAME, pai_gow_tiles.GAME})
"""The games whose dealer sets by a house way (a ruleset's ``house_way`` means something)."""
WHEEL_GAMES = frozenset({pai_gow_poker.GAME, face_up_pai_gow.GAME, caribbean_stud.GAME})
"""The card games, where a ruleset's ``wheel`` (A-2-3-4-5) means something."""

EXPLAIN: Mapping[str, Explain] = {
    pai_gow_poker.GAME: lambda t: _poker(t, face_up=False),
    face_up_pai_gow.GAME: lambda t: _poker(t, face_up=True),
    pai_gow_tiles.GAME: _tiles,
    caribbean_stud.GAME: _caribbean,
}
"""Each game's words, by the game module's name."""


def verdicts(game: str | None, table: Table) -> dict[int | None, Verdict]:
    """Each party's verdict (keyed by seat, None for the dealer); empty for a game without
    words. A hand that cannot be read (a token that is no card) gets no result and says
    why, never an exception."""
    explain = EXPLAIN.get(game or "")
    if explain is None:
        return {}
    try:
        return explain(table)
    except (ReplayError, ValueError, LookupError) as exc:
        return {seat: Verdict(result=None, why=f"the hands cannot be explained: {exc}")
                for seat in table.holdings}
