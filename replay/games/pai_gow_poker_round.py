"""A classic pai gow poker round as values: what its record gets wrong, and its reading
from a round document (README "Round documents"; docs/rules.md 1.1, 6a.13, 6a.14, 6a.18; pai
gow poker procedure (1), (4), (10), (11)).

What this module decides:

- the problems of a round's cards, all at once (:func:`deal_problems`): what
  makes the record inconsistent, so that the round cannot be judged;
- a round document as a :class:`ClassicRound` (:func:`read_document`): the cards and wagers,
  who banks, the dealer's own wager against a player banker, the progressive meter.

The judge is :mod:`replay.games.pai_gow_poker`. Nothing here does I/O.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from replay.cards import Card, render_cards
from replay.document import DocumentError, mapping, round_header, seat_list
from replay.document import cards as read_cards
from replay.document import cents as read_cents
from replay.document import field as read_field
from replay.document import seat_number as read_seat
from replay.document import wagers as read_wagers
from replay.errors import RoundError
from replay.games.pai_gow_banking import DEALER, PlayerBanker, read_banker
from replay.games.pai_gow_bonus import PROGRESSIVE, QUALIFYING_WAGER_CENTS
from replay.games.pai_gow_hands import HAND_SIZE, HIGH_SIZE, LOW_SIZE, set_correctly
from replay.notation import MAIN, HandHolding, PaiGowRound, SeatHolding
from schemas.vocabulary import GAME_WAGERS

GAME = "pai_gow_poker"
"""Classic pai gow poker's game name, as in rounds, rulesets and events."""

ACE_HIGH = "ace_high"
DOCUMENT_WAGERS = frozenset({*GAME_WAGERS[GAME], ACE_HIGH})
"""Wager names a classic round document may carry. Main, Fortune and Progressive are judged
here, the last two as in Face Up (6a.18); Ace High exists only in Face Up and is refused."""

OPTION_QUALIFYING_WAGER_CENTS = QUALIFYING_WAGER_CENTS
"""Ruleset option: the least Fortune or Progressive wager that is a Qualifying Wager and so
earns Envy Bonuses (6a.11; § 688a.1: at least $5, so 500), read by
:func:`replay.games.pai_gow_bonus.settle_bonus_wagers` (which names it
:data:`~replay.games.pai_gow_bonus.QUALIFYING_WAGER_CENTS`)."""

PROGRESSIVE_METER = "progressive_meter"
"""The round document's progressive meter in cents (required with a Progressive wager)."""

_DOCUMENT_KEYS = frozenset(
    {"round_id", "game", "ruleset", "banker", "progressive_meter", "dealer", "seats"}
)
_DEALER_KEYS = frozenset({"cards", "high", "low", "wager"})
_SEAT_KEYS = frozenset({"seat", "cards", "high", "low", "action", "wagers"})
_PLAY = "play"


# ---------------------------------------------------------------------------------------
# The problems of a round's record
# ---------------------------------------------------------------------------------------


def holding_problems(
    who: str,
    cards: tuple[Card, ...],
    high: tuple[Card, ...] | None,
    low: tuple[Card, ...] | None,
    *,
    must_be_set: bool,
    compared: bool = False,
) -> list[str]:
    """The problems of one holding (``who``: the dealer or a seat), all at once: other than
    7 dealt cards, not set when ``must_be_set``, a set hand holding a card not dealt (or one
    card twice).

    A set hand of other than 5+2 cards, all of them dealt, is a fact of play and no problem:
    the hand was "not otherwise set correctly" (58 Pa. Code § 688a.7(f)(1)(iv)) and its main wager
    loses (:func:`~replay.games.pai_gow_hands.set_correctly`). It is a problem only for a
    hand every seat is ``compared`` with (the dealer's, a player banker's), which cannot be
    compared, and beside another problem of the same holding, where it describes the record.
    """
    problems = []
    if len(cards) != HAND_SIZE:
        problems.append(
            f"{who} holds {len(cards)} dealt cards, not {HAND_SIZE}: {render_cards(cards)!r}"
        )
    if high is None or low is None:
        if must_be_set:
            problems.append(f"{who}'s hand was not set")
        return problems
    set_cards, dealt = Counter(high + low), Counter(cards)
    not_dealt = set_cards - dealt
    if not set_correctly(high, low) and (compared or problems or not_dealt):
        why = ": every seat's hand is compared with it, so it must be set 5+2" if compared else ""
        problems.append(
            f"{who} set {len(high)}+{len(low)} cards, not {HIGH_SIZE}+{LOW_SIZE}: "
            f"{render_cards(high)!r} / {render_cards(low)!r}{why}"
        )
    if not_dealt:
        problems.append(
            f"{who}'s set hand does not use exactly the dealt cards: set but not dealt "
            f"{render_cards(not_dealt.elements())!r}, dealt but not set "
            f"{render_cards((dealt - set_cards).elements())!r}"
        )
    return problems


def deal_problems(
    round: PaiGowRound,
    must_be_set: Callable[[SeatHolding], bool],
    compared: Callable[[SeatHolding], bool] = lambda seat: False,
    *,
    as_recorded: bool = False,
) -> list[str]:
    """Every problem with the cards of a round, all at once: a holding of other than 7 dealt
    cards, a set hand holding a card not dealt (docs/rules.md, Words ("set")), the dealer's
    hand (or a seat's for which ``must_be_set``) not set, the dealer's hand (or a seat's for
    which ``compared``: a player banker's) set other than 5+2, a seat number used twice, a
    card dealt twice in the round (one 53-card deck, 1.1). A player's hand set other than
    5+2 is judged, not refused (:func:`holding_problems`). ``as_recorded`` (a round of the
    log: docs/rules.md 8.1): a card dealt to two parties is judged as recorded, each hand as
    dealt; a card twice in one holding is still a problem (its rank is not defined)."""
    dealer = round.dealer
    problems = holding_problems("dealer", dealer.cards, dealer.high, dealer.low,
                                must_be_set=True, compared=True)
    seat_numbers = Counter(seat.seat for seat in round.seats)
    problems += [f"seat {n} appears {k} times" for n, k in seat_numbers.items() if k > 1]
    for seat in round.seats:
        problems += holding_problems(f"seat {seat.seat}", seat.cards, seat.high, seat.low,
                                     must_be_set=must_be_set(seat), compared=compared(seat))
    where: dict[Card, list[str]] = {}
    for who, cards in (("dealer", dealer.cards),
                       *((f"seat {s.seat}", s.cards) for s in round.seats)):
        for card in cards:
            where.setdefault(card, []).append(who)
    problems += [
        f"card {card} was dealt {len(places)} times ({', '.join(places)})"
        for card, places in sorted(where.items(), key=lambda item: item[0].index)
        if len(places) > 1 and not (as_recorded and len(set(places)) == len(places))
    ]
    return problems


# ---------------------------------------------------------------------------------------
# Round documents: dealer-banked and player-banked rounds
# ---------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class ClassicRound:
    """A classic round document as values: the cards and wagers (``round``, whose seats keep
    the document's order), who banks (``banker``; None for the dealer), the dealer's own
    wager against a player banker (``dealer_wager_cents``; pai gow poker procedure (10)) and the
    progressive meter in cents (``progressive_meter_cents``; None when the document gives
    none, which it must when a seat makes a Progressive wager: 6a.13)."""

    round: PaiGowRound
    banker: PlayerBanker | None = None
    dealer_wager_cents: int = 0
    progressive_meter_cents: int | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.round, PaiGowRound):
            raise DocumentError(f"round must be a PaiGowRound, got {self.round!r}")
        if self.banker is not None and not isinstance(self.banker, PlayerBanker):
            raise DocumentError(f"banker must be a PlayerBanker or None, got {self.banker!r}")
        wager = self.dealer_wager_cents
        if type(wager) is not int or wager < 0:
            raise DocumentError(f"dealer wager must be non-negative integer cents, got {wager!r}")
        if self.banker is None and wager:
            raise DocumentError(
                f"dealer wager {wager}: the dealer wagers only against a player banker "
                f"(pai gow poker procedure (10)); this round is dealer-banked"
            )
        meter = self.progressive_meter_cents
        if meter is not None and (type(meter) is not int or meter < 0):
            raise DocumentError(
                f"{PROGRESSIVE_METER} must be non-negative integer cents, got {meter!r}"
            )
        progressive = [seat for seat in self.round.seats if seat.wagers.get(PROGRESSIVE, 0) > 0]
        if meter is None and progressive:
            raise DocumentError(
                f"{PROGRESSIVE_METER} (cents) is required when a progressive wager is present "
                f"(seat {progressive[0].seat} wagers.{PROGRESSIVE} "
                f"{progressive[0].wagers[PROGRESSIVE]}; docs/rules.md 6a.13)"
            )


def _set_hand(
    obj: Mapping[str, Any], where: str
) -> tuple[tuple[Card, ...] | None, tuple[Card, ...] | None]:
    if "high" not in obj and "low" not in obj:
        return None, None
    if "high" not in obj or "low" not in obj:
        missing = "high" if "high" not in obj else "low"
        raise DocumentError(f"{where} sets a hand without its {missing!r} hand")
    return (read_cards(obj["high"], f"{where} high"), read_cards(obj["low"], f"{where} low"))


def _seat(value: object, index: int) -> SeatHolding:
    seat_doc = mapping(value, f"seats[{index}]", _SEAT_KEYS)
    number = read_seat(read_field(seat_doc, "seat", f"seats[{index}]"), f"seats[{index}].seat")
    who = f"seat {number}"
    action = seat_doc.get("action", _PLAY)
    if action != _PLAY:
        raise DocumentError(
            f"{who} action {action!r}: a pai gow poker seat plays its hand (action {_PLAY!r})"
        )
    amounts = read_wagers(seat_doc.get("wagers", {}), f"{who} wagers", DOCUMENT_WAGERS)
    if ACE_HIGH in amounts:
        raise DocumentError(
            f"{who} wagers.{ACE_HIGH} {amounts[ACE_HIGH]}: the Ace High wager exists only in "
            f"Face Up pai gow poker (docs/rules.md 6a.18)"
        )
    high, low = _set_hand(seat_doc, who)
    return SeatHolding(seat=number, cards=read_cards(read_field(seat_doc, "cards", who),
                                                     f"{who} cards"),
                       high=high, low=low, wagers=amounts)


def read_document(doc: Mapping[str, Any], *, as_recorded: bool = False) -> ClassicRound:
    """A classic round document (README "Round documents") as a :class:`ClassicRound`.

    DocumentError names the field and the bad value: a malformed document (not an object, a
    missing or unknown key, a value of the wrong type), an unknown card, a banker that is
    neither ``"dealer"`` nor a seat object, a seat action other than ``play``, a wager not of
    this game (Ace High: 6a.18), a Progressive wager without a ``progressive_meter`` (6a.13),
    and then, all at once: a holding of other than 7 cards, a set hand with
    cards the seat was not dealt, a card dealt twice in the round (to two parties: unless
    ``as_recorded``, :func:`deal_problems`), a seat number used twice,
    the dealer's or the banker seat's hand (or a hand with a main wager) not set, the
    dealer's or the banker seat's hand set other than 5+2 (every seat is compared with it),
    a banker seat that is not at the table.

    A player's hand set other than 5+2 with the cards it was dealt (six high and one low,
    say) is a fact of play, not bad input: it is read, and the judge has its main wager lose
    (58 Pa. Code § 688a.7(f)(1)(iv)).
    """
    top, round_id = round_header(doc, GAME, _DOCUMENT_KEYS)
    meter = None
    if PROGRESSIVE_METER in top:
        meter = read_cents(top[PROGRESSIVE_METER], PROGRESSIVE_METER)
    banker = read_banker(top.get("banker", DEALER))
    dealer_doc = mapping(read_field(top, "dealer", "the round document"), "dealer", _DEALER_KEYS)
    dealer_high, dealer_low = _set_hand(dealer_doc, "dealer")
    dealer_wager = read_cents(dealer_doc.get("wager", 0), "dealer wager")
    dealer = HandHolding(cards=read_cards(read_field(dealer_doc, "cards", "dealer"),
                                          "dealer cards"),
                         high=dealer_high, low=dealer_low)
    seats = tuple(_seat(value, i) for i, value in enumerate(seat_list(top)))
    try:
        round = PaiGowRound(round_id=round_id, game=GAME, dealer=dealer, seats=seats)
    except RoundError as exc:
        raise DocumentError(str(exc)) from None
    banker_seat = banker.seat if banker is not None else None
    problems = deal_problems(
        round, lambda seat: seat.seat == banker_seat or seat.wagers.get(MAIN, 0) > 0,
        compared=lambda seat: seat.seat == banker_seat, as_recorded=as_recorded,
    )
    numbers = [seat.seat for seat in seats]
    if banker_seat is not None and banker_seat not in numbers:
        problems.append(
            f"banker seat {banker_seat} is not at the table (seats {', '.join(map(str, numbers))})"
        )
    if problems:
        raise DocumentError("; ".join(problems))
    return ClassicRound(round=round, banker=banker, dealer_wager_cents=dealer_wager,
                        progressive_meter_cents=meter)

