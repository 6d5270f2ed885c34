"""Face Up pai gow poker: a dealer-banked round, its Face Up wager and its optional wagers
(58 Pa. Code § 688a.1, § 688a.7(f), (h); docs/rules.md 2, 6 "Face Up", 6a.6,
6a.8-6a.13, 6a.18).

What this module decides, each with the rule it implements:

- the Face Up wager (§ 688a.7(f); 6: no commission, a dealer Ace High Pai Gow ties every
  Face Up wager, a fouled player hand still loses);
- the Ace High Bonus (§ 688a.7(h)(1); 6a.9, 6a.12);
- a whole round document (:func:`judge_document`; README "Round documents").

What it shares with classic pai gow poker lives in modules both import: the seven-card
classes and Ace High Pai Gow (:mod:`replay.games.seven_card_classes`; 6a.8, 6a.10), the
Fortune, Progressive and Envy settlement (:mod:`replay.games.pai_gow_bonus`; § 688a.7(h)(2)-(3);
6a.11-6a.13), the ranks (:mod:`replay.games.poker_ranks`), the foul
(:mod:`replay.games.pai_gow_hands`) and the house way
(:mod:`replay.games.pai_gow_house_way`). Their public names are re-exported here.

No paytable, amount, threshold or rate is a literal here: they are the ruleset's posted
paytables (:data:`ACE_HIGH`, :data:`FORTUNE`, :data:`ENVY`, :data:`PROGRESSIVE`) and its
option :data:`QUALIFYING_WAGER_CENTS`; the Face Up wager's commission is the ruleset's (0 in
the shipped ruleset). Nothing here does I/O.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from replay.cards import DECK_53, JOKER, Card, render_cards
from replay.document import DocumentError, cents, seat_number
from replay.document import cards as read_cards
from replay.document import wagers as read_wagers
from replay.errors import MoneyError, RoundError, RulesetError
from replay.games.base import GameRules, PaytableClasses
from replay.games.house_way_text import UnknownHouseWayError
from replay.games.pai_gow_bonus import ENVY as ENVY
from replay.games.pai_gow_bonus import FORTUNE as FORTUNE
from replay.games.pai_gow_bonus import PAYTABLE_CLASSES as BONUS_PAYTABLE_CLASSES
from replay.games.pai_gow_bonus import PROGRESSIVE as PROGRESSIVE
from replay.games.pai_gow_bonus import QUALIFYING_WAGER_CENTS as QUALIFYING_WAGER_CENTS
from replay.games.pai_gow_bonus import BonusHand as BonusHand
from replay.games.pai_gow_bonus import BonusResult as BonusResult
from replay.games.pai_gow_bonus import Settled, missing_paytable, settle_bonus_codes
from replay.games.pai_gow_bonus import settle_bonus_wagers as settle_bonus_wagers
from replay.games.pai_gow_hands import HAND_SIZE as HAND_SIZE
from replay.games.pai_gow_hands import HIGH_SIZE as HIGH_SIZE
from replay.games.pai_gow_hands import LOW_SIZE as LOW_SIZE
from replay.games.pai_gow_hands import Settlement as Settlement
from replay.games.pai_gow_hands import describe_hand
from replay.games.pai_gow_hands import is_foul as is_foul
from replay.games.pai_gow_house_way import HOUSE_WAYS as HOUSE_WAYS
from replay.games.pai_gow_house_way import dealer_setting, find_house_way, follows_house_way
from replay.games.pai_gow_house_way import house_way_setting as house_way_setting
from replay.games.poker_ranks import HighRank as HighRank
from replay.games.poker_ranks import LowRank as LowRank
from replay.games.poker_ranks import rank_high as rank_high
from replay.games.poker_ranks import rank_low as rank_low
from replay.games.results import Outcome as Outcome
from replay.games.results import (
    ResultObject,
    SeatEntry,
    WagerEntry,
    dealer_entry,
    result_object,
    seat_entry,
    wager_entry,
    win_ranges,
)
from replay.games.seven_card_classes import (
    ACE_HIGH_PAI_GOW_FLAG,
    CODE_MASK,
    classify_indexes,
    paytable_class,
)
from replay.games.seven_card_classes import ENVY_QUALIFYING_CLASSES as ENVY_QUALIFYING_CLASSES
from replay.games.seven_card_classes import SevenCardClass as SevenCardClass
from replay.games.seven_card_classes import is_ace_high_pai_gow as is_ace_high_pai_gow
from replay.games.seven_card_classes import seven_card_class as seven_card_class
from replay.ruleset_model import read_once
from schemas.vocabulary import GAME_WAGERS

if TYPE_CHECKING:
    from replay.ruleset_model import Payout, Ruleset

GAME = "face_up_pai_gow"
"""This module's game name, as in rounds, rulesets and events."""

MAIN = "main"
ACE_HIGH = "ace_high"
"""Wager names (in a round document, README "Round documents"): the Face Up wager and the
Ace High Bonus Wager, the latter also the name of the ruleset paytable it is paid from. The
Fortune and Progressive wagers and the Envy Bonus are named in
:mod:`replay.games.pai_gow_bonus`."""

WAGER_NAMES = frozenset(GAME_WAGERS[GAME])

_AHPG = ACE_HIGH_PAI_GOW_FLAG
_WIN = Outcome.WIN.value
_LOSS = Outcome.LOSS.value
_PUSH = Outcome.PUSH.value
_CODE_MASK = CODE_MASK
_JOKER_INDEX = JOKER.index


# ---------------------------------------------------------------------------------------
# The Ace High Bonus paytable, read once per ruleset
# ---------------------------------------------------------------------------------------

ACE_HIGH_BOTH = "player_and_dealer_ace_high_pai_gow"
ACE_HIGH_DEALER_WITH_JOKER = "dealer_ace_high_pai_gow_with_joker"
ACE_HIGH_DEALER_WITHOUT_JOKER = "dealer_ace_high_pai_gow_without_joker"
ACE_HIGH_LINES = (ACE_HIGH_BOTH, ACE_HIGH_DEALER_WITH_JOKER, ACE_HIGH_DEALER_WITHOUT_JOKER)
"""The Ace High Bonus paytable's lines, in the order they are checked (docs/rules.md 6a.9)."""


_AceHigh = tuple["Payout", "Payout", "Payout"]


def _read_ace_high(ruleset: Ruleset) -> _AceHigh | None:
    if ACE_HIGH not in ruleset.paytables:
        return None
    table = ruleset.paytables[ACE_HIGH]
    if set(table) != set(ACE_HIGH_LINES) or any(p.odds is None for p in table.values()):
        raise RulesetError(
            f"ruleset {ruleset.id}: paytable {ACE_HIGH} must pay odds on exactly the lines "
            f"{list(ACE_HIGH_LINES)} (docs/rules.md 6a.9, 6a.12), got {dict(table)!r}"
        )
    return (table[ACE_HIGH_BOTH], table[ACE_HIGH_DEALER_WITH_JOKER],
            table[ACE_HIGH_DEALER_WITHOUT_JOKER])


_ace_high_table = read_once(_read_ace_high)
"""The ruleset's Ace High Bonus paytable, read and checked once per ruleset."""


def ace_high_line(*, dealer_ace_high: bool, dealer_joker: bool, player_ace_high: bool) -> int:
    """Which Ace High Bonus line pays, as an index into :data:`ACE_HIGH_LINES`, or -1 when the wager
    loses (58 Pa. Code § 688a.7(h)(1): it loses unless the dealer has an Ace High Pai Gow;
    docs/rules.md 6a.9: checked in the order player and dealer both, dealer with the joker, dealer
    without the joker)."""
    if not dealer_ace_high:
        return -1
    if player_ace_high:
        return 0
    return 1 if dealer_joker else 2


# ---------------------------------------------------------------------------------------
# Round documents
# ---------------------------------------------------------------------------------------

_INDEX: dict[str, int] = {str(c): c.index for c in DECK_53}
_CARD: dict[str, Card] = {str(c): c for c in DECK_53}
_BIT: dict[str, int] = {str(c): 1 << c.index for c in DECK_53}
_TOP_KEYS = frozenset({"round_id", "game", "ruleset", "banker", "progressive_meter",
                       "dealer", "seats"})
_DEALER_KEYS = frozenset({"cards", "high", "low", "wager"})
_SEAT_KEYS = frozenset({"seat", "cards", "high", "low", "action", "wagers"})
_PLAY = "play"


def _tokens(
    value: object, where: str, name: str, count: int | None = None
) -> tuple[list[str], int]:
    """A list of card tokens (``count`` of them, or any number) and the cards as a 53-bit
    mask, the sum of their bits: it has as many bits as tokens exactly when no card repeats
    (a repeat carries into another bit and loses one). The document reader names a bad
    token or count."""
    if type(value) is list and (count is None or len(value) == count):
        try:
            return value, sum(map(_BIT.__getitem__, value))
        except (KeyError, TypeError):
            pass
    tokens = [str(card) for card in read_cards(value, f"{where}.{name}", count=count)]
    return tokens, sum(map(_BIT.__getitem__, tokens))


def _render(mask: int) -> str:
    return render_cards(c for c in DECK_53 if mask >> c.index & 1)


def _unknown(obj: Mapping[str, Any], allowed: frozenset[str], where: str) -> None:
    if not allowed.issuperset(obj):
        raise DocumentError(f"{where} has unknown fields {sorted(set(obj) - allowed)}; "
                            f"allowed: {sorted(allowed)}")


_Holding = tuple[list[int], int, list[Card] | None, list[Card] | None, bool]
"""A party's dealt cards (indexes and mask), its high and low hands (None: not set), and
whether they were set other than 5+2 (58 Pa. Code § 688a.7(f)(1)(iv): not set correctly)."""


def _holding(obj: object, where: str, *, must_be_set: bool, compared: bool = False) -> _Holding:
    if type(obj) is not dict and not isinstance(obj, Mapping):
        raise DocumentError(f"{where} must be an object, got {obj!r}")
    if "cards" not in obj:
        raise DocumentError(f"{where} has no 'cards'")
    dealt, mask = _tokens(obj["cards"], where, "cards", HAND_SIZE)
    if mask.bit_count() != HAND_SIZE:
        raise DocumentError(f"{where}.cards repeats a card: {' '.join(dealt)}")
    indexes = list(map(_INDEX.__getitem__, dealt))
    if "high" not in obj and "low" not in obj and not must_be_set:
        return indexes, mask, None, None, False
    for name in ("high", "low"):
        if name not in obj:
            raise DocumentError(f"{where} has no {name!r}: its hand must be set")
    high, high_mask = _tokens(obj["high"], where, "high")
    low, low_mask = _tokens(obj["low"], where, "low")
    if high_mask.bit_count() != len(high) or low_mask.bit_count() != len(low):
        raise DocumentError(f"{where}: the high and low hands repeat a card: "
                            f"{' '.join(high)} / {' '.join(low)}")
    set_mask = high_mask | low_mask
    if set_mask & ~mask or high_mask & low_mask:
        raise DocumentError(
            f"{where}: the high and low hands must use exactly the dealt cards "
            f"{_render(mask)!r}; set but not dealt {_render(set_mask & ~mask)!r}, dealt but "
            f"not set {_render(mask & ~set_mask)!r}"
        )
    misset = len(high) != HIGH_SIZE or len(low) != LOW_SIZE
    if misset and compared:
        raise DocumentError(
            f"{where} set {len(high)}+{len(low)} cards, not {HIGH_SIZE}+{LOW_SIZE}: "
            f"{' '.join(high)} / {' '.join(low)}; every seat's hand is compared with it, so "
            f"it must be set {HIGH_SIZE}+{LOW_SIZE}"
        )
    return (indexes, mask, list(map(_CARD.__getitem__, high)),
            list(map(_CARD.__getitem__, low)), misset)


def _repeated(parties: Sequence[tuple[str, list[int]]]) -> str:
    where: dict[int, list[str]] = {}
    for who, dealt in parties:
        for i in dealt:
            where.setdefault(i, []).append(who)
    return "; ".join(f"card {DECK_53[i]} dealt to {' and '.join(places)}"
                     for i, places in sorted(where.items()) if len(places) > 1)


def _wagers(value: object, where: str) -> dict[str, int]:
    """A seat's wagers (the document reader names a bad one; zero amounts dropped: 6a.18)."""
    if type(value) is dict:
        out = {}
        for name, amount in value.items():
            if name not in WAGER_NAMES or type(amount) is not int or amount < 0:
                break
            if amount:
                out[name] = amount
        else:
            return out
    return read_wagers(value, f"{where}.wagers", WAGER_NAMES)


def _main_result(amount: int, outcome: Outcome, ruleset: Ruleset) -> WagerEntry:
    """The Face Up wager's settlement in the result form, by the rule of
    :func:`replay.games.pai_gow_poker.settle_main` (docs/rules.md 1.2, 6: a win pays 1:1 less
    the ruleset's commission, none for Face Up, with its lawful range when the ruleset states
    one, docs/rules.md 6a.19; a loss loses the amount; a tie returns it), without building a
    Settlement on the hot path."""
    if outcome is Outcome.WIN:
        policy = ruleset.commission
        commission = policy.on(amount)
        if not policy.ranged:  # a point: the shipped ruleset
            return wager_entry(_WIN, amount - commission, commission)
        net_range, commission_range = win_ranges(amount, policy.lawful(amount))
        return wager_entry(_WIN, amount - commission, commission, net_range=net_range,
                           commission_range=commission_range)
    if outcome is Outcome.LOSS:
        return wager_entry(_LOSS, -amount, 0)
    if outcome is Outcome.PUSH:
        return wager_entry(_PUSH, 0, 0)
    raise MoneyError(f"Face Up voids no wager: outcome must be a win, loss or push, "
                     f"got {outcome!r}")


def judge_document(doc: Mapping[str, Any], ruleset: Ruleset, *,
                   as_recorded: bool = False) -> ResultObject:
    """The result object of one Face Up round document (README "Round documents").

    The Face Up wager (58 Pa. Code § 688a.7(f); docs/rules.md 6): a fouled player hand loses
    ((f)(1)(iii)), even when the dealer has an Ace High Pai Gow (6, 6a.6), and so does a
    hand set other than 5+2 from the cards dealt (six high and one low, say: "not otherwise
    set correctly", (f)(1)(iv)), which is reported as a foul; otherwise a
    dealer Ace High Pai Gow ties it ((f)(2)(iii)); otherwise both hands higher wins 1:1
    ((f)(3)), less the ruleset's commission (none in the shipped ruleset), one hand higher
    ties ((f)(2)(i)-(ii)), and neither higher loses ((f)(1)(i)-(ii): copies go to the
    dealer). The optional wagers are settled on the seven cards whatever the setting
    (§ 688a.7(h), 6a.6): Ace High Bonus (:func:`ace_high_line`, wager x odds), Fortune,
    Progressive and Envy (:func:`settle_bonus_wagers`).

    The dealer: ``foul`` as set (reported, and compared as set: 6a.7), ``house_way`` whether
    the set hand is the ruleset's house way (the same cards in each hand, or hands of the
    same ranks), ``ace_high_pai_gow`` (6a.8); ``qualifies`` is null and ``net`` 0 (the
    dealer banks and has no wager of its own). Seats keep the document's order; a seat's
    ``foul`` is null when it set no hand (allowed only without a Face Up wager); wagers of
    zero or absent are left out (6a.18); ``envy`` is the seat's total Envy Bonus.

    :class:`DocumentError` names what is wrong and where: a malformed document, unknown
    fields, cards or wagers, a card twice in one holding, a card dealt to two parties
    (unless ``as_recorded``: a round of the log, judged as recorded, each hand as dealt:
    docs/rules.md 8.1), other than seven dealt cards, a set hand
    holding a card not dealt, a dealer hand set other than 5+2 (every seat is compared with
    it), a player banker (Face Up is dealer-banked only: 6a.18), a dealer wager, a missing
    progressive_meter when a Progressive wager is present.
    """
    if not isinstance(doc, Mapping):
        raise DocumentError(f"a round document must be an object, got {doc!r}")
    _unknown(doc, _TOP_KEYS, "the round document")
    round_id = doc.get("round_id")
    if not isinstance(round_id, str) or not round_id:
        raise DocumentError(f"round_id must be non-empty text, got {round_id!r}")
    if doc.get("game") != GAME:
        raise DocumentError(f"game must be {GAME!r}, got {doc.get('game')!r}")
    banker = doc.get("banker", "dealer")
    if banker != "dealer":
        raise DocumentError(
            f"banker {banker!r} refused: Face Up pai gow poker is dealer-banked only "
            f"(docs/rules.md 6a.18); banker must be \"dealer\" or absent"
        )
    dealer_doc = doc.get("dealer")
    if dealer_doc is None:
        raise DocumentError("the round document has no 'dealer'")
    if isinstance(dealer_doc, Mapping):
        _unknown(dealer_doc, _DEALER_KEYS, "dealer")
        if cents(dealer_doc.get("wager", 0), "dealer.wager"):
            raise DocumentError(
                f"dealer.wager {dealer_doc['wager']!r} refused: the dealer wagers only against "
                f"a player banker, and Face Up is dealer-banked only (docs/rules.md 6a.18)"
            )
    dealer_cards, round_mask, dealer_high, dealer_low, _ = _holding(
        dealer_doc, "dealer", must_be_set=True, compared=True)
    assert dealer_high is not None and dealer_low is not None
    seats_doc = doc.get("seats")
    if not isinstance(seats_doc, list):
        raise DocumentError(f"seats must be a list of seats, got {seats_doc!r}")

    numbers: list[int] = []
    holdings: list[_Holding] = []
    wagered: list[dict[str, int]] = []
    for i, seat_doc in enumerate(seats_doc):
        if type(seat_doc) is not dict and not isinstance(seat_doc, Mapping):
            raise DocumentError(f"seats[{i}] must be an object, got {seat_doc!r}")
        if "seat" not in seat_doc:
            raise DocumentError(f"seats[{i}] has no 'seat'")
        number = seat_number(seat_doc["seat"], f"seats[{i}].seat")
        where = f"seat {number}"
        _unknown(seat_doc, _SEAT_KEYS, where)
        action = seat_doc.get("action", _PLAY)
        if action != _PLAY:
            raise DocumentError(f"{where}.action must be {_PLAY!r} in Face Up pai gow poker, "
                                f"got {action!r}")
        amounts = _wagers(seat_doc.get("wagers", {}), where)
        holding = _holding(seat_doc, where, must_be_set=MAIN in amounts)
        round_mask |= holding[1]
        numbers.append(number)
        holdings.append(holding)
        wagered.append(amounts)
    if len(set(numbers)) != len(numbers):
        twice = sorted({n for n in numbers if numbers.count(n) > 1})
        raise DocumentError(f"seats {twice} appear more than once")
    if not as_recorded and round_mask.bit_count() != HAND_SIZE * (len(holdings) + 1):
        raise DocumentError("a card is dealt twice: " + _repeated(
            [("dealer", dealer_cards),
             *((f"seat {n}", h[0]) for n, h in zip(numbers, holdings, strict=True))]))
    meter = None
    if "progressive_meter" in doc:
        meter = cents(doc["progressive_meter"], "progressive_meter")
    if meter is None and any(PROGRESSIVE in w for w in wagered):
        raise DocumentError("progressive_meter (cents) is required when a progressive wager "
                            "is present (docs/rules.md 6a.13)")
    try:
        way = find_house_way(ruleset)
    except UnknownHouseWayError as exc:
        raise DocumentError(str(exc)) from None

    wheel = ruleset.wheel
    d_high = rank_high(dealer_high, wheel=wheel)
    d_low = rank_low(dealer_low)
    follows = follows_house_way([DECK_53[i] for i in dealer_cards], dealer_high, dealer_low,
                                wheel=wheel, way=way)
    dealer_flags = classify_indexes(dealer_cards)
    dealer_ace_high = bool(dealer_flags & _AHPG)
    dealer_joker = _JOKER_INDEX in dealer_cards

    codes: list[int] = []
    seats_out: list[SeatEntry] = []
    for number, (dealt, _, high, low, misset), amounts in zip(numbers, holdings, wagered,
                                                             strict=True):
        flags = classify_indexes(dealt)
        codes.append(flags & _CODE_MASK)
        wagers_out: dict[str, WagerEntry] = {}
        foul: bool | None = None
        if misset:
            # (f)(1)(iv): "not otherwise set correctly" loses, reported as a foul
            foul = True
            amount = amounts.get(MAIN)
            if amount:
                wagers_out[MAIN] = _main_result(amount, Outcome.LOSS, ruleset)
        elif high is not None and low is not None:
            p_high = rank_high(high, wheel=wheel)
            p_low = rank_low(low)
            foul = is_foul(p_high, p_low)
            amount = amounts.get(MAIN)
            if amount:
                wagers_out[MAIN] = _main_result(
                    amount, _face_up_outcome(foul, dealer_ace_high, p_high, p_low, d_high, d_low),
                    ruleset)
        amount = amounts.get(ACE_HIGH)
        if amount:
            outcome, net = _ace_high(ruleset, amount, ace_high_line(
                dealer_ace_high=dealer_ace_high, dealer_joker=dealer_joker,
                player_ace_high=bool(flags & _AHPG)))
            wagers_out[ACE_HIGH] = wager_entry(outcome, net, 0)
        seats_out.append(seat_entry(number, foul, wagers_out))

    _ace_high_table(ruleset)  # a ruleset's Ace High paytable is checked in every round
    try:
        fortune, progressive, envy, meter_ranges = settle_bonus_codes(
            codes, [w.get(FORTUNE, 0) for w in wagered], [w.get(PROGRESSIVE, 0) for w in wagered],
            ruleset, meter,
        )
    except RoundError as exc:
        raise DocumentError(str(exc)) from None
    for k, out in enumerate(seats_out):
        settled = fortune[k]
        if settled is not None:
            out["wagers"][FORTUNE] = wager_entry(settled[0], settled[1], 0)
        settled = progressive[k]
        if settled is not None:
            out["wagers"][PROGRESSIVE] = wager_entry(settled[0], settled[1], 0,
                                                     net_range=meter_ranges[k])
        out["envy"] = envy[k]
    return result_object(
        round_id=round_id, ruleset_id=ruleset.id,
        dealer=dealer_entry(foul=is_foul(d_high, d_low), house_way=follows,
                            ace_high_pai_gow=dealer_ace_high),
        seats=seats_out,
    )


def _face_up_outcome(foul: bool, dealer_ace_high: bool, p_high: HighRank, p_low: LowRank,
                     d_high: HighRank, d_low: LowRank) -> Outcome:
    """58 Pa. Code § 688a.7(f): (1)(iii) a foul loses, before (2)(iii) the dealer's Ace High Pai
    Gow ties (docs/rules.md 6); otherwise the rule of
    :func:`replay.games.pai_gow_poker.compare` ((1)(i)-(ii), (2)(i)-(ii), (3))."""
    if foul:
        return Outcome.LOSS
    if dealer_ace_high:
        return Outcome.PUSH
    # compare()'s rule on the ranks' keys (a hand wins only when strictly higher; copies go
    # to the dealer), without its argument conversions on the hot path
    high_won = p_high.key > d_high.key
    if high_won and p_low.key > d_low.key:
        return Outcome.WIN
    if high_won or p_low.key > d_low.key:
        return Outcome.PUSH
    return Outcome.LOSS


def _ace_high(ruleset: Ruleset, amount: int, line: int) -> Settled:
    """58 Pa. Code § 688a.7(h)(1); docs/rules.md 6a.9, 6a.12: wager x the line's odds, or the
    loss."""
    if line < 0:
        return (_LOSS, -amount)
    table = _ace_high_table(ruleset)
    if table is None:
        raise missing_paytable(ruleset, ACE_HIGH)
    return (_WIN, table[line].win_cents(wager_cents=amount))


RULES = GameRules(
    name=GAME,
    title="Face Up pai gow poker (dealer banked; Ace High, Fortune, Envy, Progressive)",
    deck=DECK_53,
    citation="58 Pa. Code § 688a.1, § 688a.7(f), (h); docs/rules.md 2, 6, 6a.6, 6a.8-6a.13, "
             "6a.18",
    judge_document=judge_document,
    option_names=frozenset({QUALIFYING_WAGER_CENTS}),
    paytable_names=frozenset({ACE_HIGH, FORTUNE, PROGRESSIVE, ENVY}),
    paytable_classes={**BONUS_PAYTABLE_CLASSES,
                      ACE_HIGH: PaytableClasses(classes=ACE_HIGH_LINES, required=ACE_HIGH_LINES,
                                                pays=frozenset({"odds"}))},
    house_ways=frozenset(HOUSE_WAYS),
    dealer_setting=dealer_setting,
    describe_hand=describe_hand,
    paytable_class=paytable_class,
)

