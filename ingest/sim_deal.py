"""Dealing and playing one simulated round of each game: the facts of a round, before anyone
settles it (used by :mod:`ingest.simulate`).

A round is dealt from a real shuffled deck or tile set (53 cards with the joker for the two
pai gow poker games, 52 for Caribbean stud, the 32 tiles of :data:`replay.tiles.TILES_32`);
the dealer sets by the ruleset's house way, players set sensibly (the house way, or the best
low hand that does not foul) and now and then carelessly. With ``rich`` > 0 some rounds give
one party a strong hand (four of a kind or better, a royal flush ...) by rigging the shuffle:
the hand's cards are swapped into that party's places, so the round still holds every card
once. Pure given the ``random.Random`` passed in: no clock, no I/O.

The facts are a :class:`RoundPlan`; :func:`document` turns one into the README's round
document, which :func:`replay.adjudicate.judge_document` judges.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from replay.cards import DECK_52, DECK_53, JOKER, Card, Rank, Suit, parse_card
from replay.games import caribbean_stud, pai_gow_tiles
from replay.games.pai_gow_poker import (
    find_house_way,
    follows_house_way,
    house_way_setting,
    is_foul,
    rank_high,
    rank_low,
)
from replay.games.pai_gow_poker import splits as card_splits
from replay.rulesets import Ruleset
from replay.tiles import TILES_32, Tile, parse_tile

CLASSIC = "pai_gow_poker"
FACE_UP = "face_up_pai_gow"
TILES = "pai_gow_tiles"
CARIBBEAN = "caribbean_stud"

MAIN_CENTS = tuple(range(1_000, 10_001, 500))  # $10 to $100 in $5 steps
ANTE_CENTS = tuple(range(500, 5_001, 500))  # $5 to $50
SIDE_CENTS = tuple(range(500, 2_501, 500))  # Ace High and Fortune, $5 to $25
PROGRESSIVE_CENTS = (100, 200, 300, 400, 500)  # $1 to $5: only $5 is a Qualifying Wager
CARIBBEAN_PROGRESSIVE_CENTS = 100

CARELESS_RATE = 0.04
"""A player sets a random split (which may foul)."""
HOUSE_WAY_RATE = 0.5
"""A player asks for the house way; the others take the best low hand that does not foul."""
RESET_RATE = 0.04
"""A seat (or the classic dealer) sets once, then sets again before exposing: the last counts."""
PLAYER_BANK_RATE = 0.2
"""Classic pai gow poker and tiles rounds banked by a player (half of them co-banked)."""
WITHDRAW_RATE = 0.05
CONCEDE_RATE = 0.3
"""Caribbean stud: a seat that raised and sees the dealer beat it concedes."""
DEALER_RIG_SHARE = 0.15
"""Of the rigged rounds of the pai gow poker games, the share where the dealer is rigged."""
CHANGE_RATE = 0.15
"""Classic pai gow poker banked by a player (schema id 3): the dealer exposes a setting, then
changes it to the house way before the player banker's hand is exposed (procedure (9))."""

Hand = tuple[str, ...]
"""Cards or tiles in notation (``As``, ``Jk``, ``6-6``)."""
Setting = tuple[Hand, Hand]
"""(high, low)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class SeatPlay:
    """What a seat was dealt and did. ``sets`` are the settings it sent, in order (the last
    counts; empty when it set none); ``action`` is ``play``, ``fold`` or ``concede``
    (Caribbean stud: ``play`` means raised) or ``withdraw`` (tiles); ``wagers`` name -> cents
    in the order placed (a Caribbean raise last)."""

    seat: int
    dealt: Hand
    sets: tuple[Setting, ...] = ()
    action: str = "play"
    wagers: dict[str, int]


@dataclass(frozen=True, slots=True, kw_only=True)
class RoundPlan:
    """The facts of one round: the game and ruleset, who banks, the progressive meter (None
    when no seat makes a progressive wager), the dealer's cards, settings and own wager
    (against a player banker), and the seats in seat order."""

    round_id: str
    game: str
    ruleset: Ruleset
    banker_seat: int | None
    co_bank: bool
    meter: int | None
    dealer_dealt: Hand
    dealer_sets: tuple[Setting, ...]
    dealer_wager: int
    seats: tuple[SeatPlay, ...]
    meter_follows: bool = False
    """The meter read in this round follows an earlier reading of the table's meter with no
    award taken from it since (what a check of the meter's continuity can judge)."""
    preceding_wager: int | None = None
    """Classic pai gow poker banked by a player: the banker's main wager on the preceding
    hand the dealer banked at the table, which the dealer's own wager equals (pai gow poker
    procedure (10)): the banker patron's (schema id 3, where patrons are tracked), else the
    banker seat's; None when there is none."""
    vocabulary: int = 3
    """The schema id the round is recorded under: below 3 none of the facts below it are
    recorded (no patrons, cover, dealer's change, collection, shuffle or passing of the bank)."""
    patrons: Mapping[int, str] | None = None
    """Seat -> the patron's player-tracking id (None: not recorded)."""
    preceding_patrons: Mapping[str, int] | None = None
    """Classic pai gow poker (schema id 3): patron -> main wager on the table's preceding
    dealer-banked hand."""
    banker_cover: int | None = None
    """What the player banker put up to cover the wagers against the bank (procedure (11))."""
    dealer_changes: int = 0
    """The last ``dealer_changes`` of ``dealer_sets`` are changes of the dealer's exposed
    hand (HandChanged, procedure (9)), the others its settings before exposure."""
    shuffle: tuple[str, str | None] | None = None
    """(kind, deck id) of the reshuffle after the round's settlement (None: not recorded)."""
    bank_passed: tuple[int | None, str] | None = None
    """(to seat, reason) when the next round at the table is banked by someone else."""
    last_at_table: bool = False
    """The shift's last round at the table: no deal follows it."""

    @property
    def uses_tiles(self) -> bool:
        return self.game == TILES

    def seat(self, number: int) -> SeatPlay:
        return next(s for s in self.seats if s.seat == number)


def document(plan: RoundPlan) -> dict[str, Any]:
    """The round document (README "Round documents") of ``plan``: what the judge reads."""
    key = "tiles" if plan.uses_tiles else "cards"
    dealer: dict[str, Any] = {key: list(plan.dealer_dealt)}
    if plan.dealer_sets:
        dealer["high"], dealer["low"] = (list(h) for h in plan.dealer_sets[-1])
    if plan.dealer_wager:
        dealer["wager"] = plan.dealer_wager
    seats = []
    for s in plan.seats:
        entry: dict[str, Any] = {"seat": s.seat, key: list(s.dealt)}
        if s.sets and s.action != "withdraw":
            entry["high"], entry["low"] = (list(h) for h in s.sets[-1])
        entry["action"] = s.action
        entry["wagers"] = dict(s.wagers)
        seats.append(entry)
    doc: dict[str, Any] = {
        "round_id": plan.round_id, "game": plan.game, "ruleset": plan.ruleset.id,
        "banker": ("dealer" if plan.banker_seat is None
                   else {"seat": plan.banker_seat, "co_bank": plan.co_bank}),
    }
    if plan.meter is not None:
        doc["progressive_meter"] = plan.meter
    doc["dealer"] = dealer
    doc["seats"] = seats
    return doc


def _tokens(items: Sequence[Card] | Sequence[Tile]) -> Hand:
    return tuple(str(x) for x in items)


# ---------------------------------------------------------------------------------------
# Rigged strong hands (--rich-hands)
# ---------------------------------------------------------------------------------------

_NATURAL = (Suit.CLUBS, Suit.DIAMONDS, Suit.HEARTS, Suit.SPADES)


def _run(start: int, length: int, suit: Suit) -> list[Card]:
    return [Card(rank=Rank(r), suit=suit) for r in range(start, start + length)]


def _strong_seven(rng: random.Random) -> list[Card]:
    """Four to seven cards that make four of a kind or better in pai gow poker."""
    suit = rng.choice(_NATURAL)
    kind = rng.choices(("quads", "five_aces", "royal", "straight_flush", "royal_match",
                        "seven_card_straight_flush"), weights=(45, 10, 15, 10, 12, 8))[0]
    if kind == "quads":
        rank = Rank(rng.randint(Rank.TWO, Rank.ACE))
        return [Card(rank=rank, suit=s) for s in _NATURAL]
    if kind == "five_aces":
        return [*(Card(rank=Rank.ACE, suit=s) for s in _NATURAL), JOKER]
    if kind == "royal":
        return _run(Rank.TEN, 5, suit)
    if kind == "straight_flush":
        return _run(rng.randint(Rank.TWO, Rank.NINE), 5, suit)
    if kind == "royal_match":
        other = rng.choice([s for s in _NATURAL if s != suit])
        return [*_run(Rank.TEN, 5, suit), Card(rank=Rank.KING, suit=other),
                Card(rank=Rank.QUEEN, suit=other)]
    return _run(rng.randint(Rank.TWO, Rank.EIGHT), 7, suit)


def _strong_five(rng: random.Random) -> list[Card]:
    """Five cards that win a Caribbean stud progressive award."""
    suit = rng.choice(_NATURAL)
    kind = rng.choices(("royal", "straight_flush", "quads", "full_house", "flush"),
                       weights=(20, 20, 30, 15, 15))[0]
    if kind == "royal":
        return _run(Rank.TEN, 5, suit)
    if kind == "straight_flush":
        return _run(rng.randint(Rank.TWO, Rank.NINE), 5, suit)
    ranks = rng.sample(range(Rank.TWO, Rank.ACE + 1), 5)
    if kind == "flush":  # now and then a straight flush: a progressive winner as well
        return [Card(rank=Rank(r), suit=suit) for r in ranks]
    suits = rng.sample(_NATURAL, 4)
    if kind == "quads":
        return [*(Card(rank=Rank(ranks[0]), suit=s) for s in _NATURAL),
                Card(rank=Rank(ranks[1]), suit=suit)]
    return [*(Card(rank=Rank(ranks[0]), suit=s) for s in suits[:3]),
            *(Card(rank=Rank(ranks[1]), suit=s) for s in suits[:2])]


def _rig(deck: list[Card], start: int, cards: Sequence[Card]) -> None:
    """Swap ``cards`` into the places ``start``, ``start + 1`` ... of the shuffled ``deck``:
    the party dealt from there holds them, and every card is still in the deck once."""
    for i, card in enumerate(cards):
        j = deck.index(card)
        deck[start + i], deck[j] = deck[j], deck[start + i]


# ---------------------------------------------------------------------------------------
# How players and the dealer set their hands
# ---------------------------------------------------------------------------------------


def _cards_house_way(cards: Sequence[Card], ruleset: Ruleset) -> Setting:
    hw = house_way_setting(cards, wheel=ruleset.wheel, way=find_house_way(ruleset))
    return _tokens(hw.high), _tokens(hw.low)


def card_settings(cards: Sequence[Card], ruleset: Ruleset
                  ) -> list[tuple[Setting, bool, tuple[Any, ...]]]:
    """Every split of seven cards: (setting, foul, (low rank key, high rank key))."""
    out = []
    for high, low in card_splits(cards):
        hr, lr = rank_high(high, wheel=ruleset.wheel), rank_low(low)
        out.append(((_tokens(high), _tokens(low)), is_foul(hr, lr), (lr.key, hr.key)))
    return out


def _player_cards(cards: Sequence[Card], ruleset: Ruleset, rng: random.Random
                  ) -> tuple[Setting, ...]:
    options = card_settings(cards, ruleset)
    roll = rng.random()
    if roll < CARELESS_RATE:
        final = rng.choice(options)[0]
    elif roll < CARELESS_RATE + HOUSE_WAY_RATE:
        final = _cards_house_way(cards, ruleset)
    else:
        final = max((o for o in options if not o[1]), key=lambda o: o[2])[0]
    if rng.random() < RESET_RATE:
        return rng.choice(options)[0], final
    return (final,)


def _tile_setting(s: pai_gow_tiles.Setting, *, swapped: bool = False) -> Setting:
    high, low = _tokens(s.high), _tokens(s.low)
    return (low, high) if swapped else (high, low)


def tiles_house_way(tiles: Sequence[Tile], ruleset: Ruleset) -> Setting:
    way = pai_gow_tiles.find_house_way(ruleset)
    return _tile_setting(pai_gow_tiles.house_way_setting(tiles, way=way).setting)


def _player_tiles(tiles: Sequence[Tile], ruleset: Ruleset, rng: random.Random
                  ) -> tuple[Setting, ...]:
    options = pai_gow_tiles.settings(tiles)
    roll = rng.random()
    if roll < CARELESS_RATE:
        final = _tile_setting(rng.choice(options), swapped=rng.random() < 0.5)
    elif roll < CARELESS_RATE + HOUSE_WAY_RATE:
        final = tiles_house_way(tiles, ruleset)
    else:
        final = _tile_setting(max(options, key=lambda s: (s.low_rank, s.high_rank)))
    if rng.random() < RESET_RATE:
        return _tile_setting(rng.choice(options)), final
    return (final,)


def other_dealer_settings(plan: RoundPlan) -> list[Setting]:
    """Settings of the dealer's hand that do not foul and that the ruleset's house way does
    not allow (for the injected fault ``dealer_not_house_way``): never one of the lawful
    alternatives a casino's way lists (docs/house-way.md), which the checks rightly pass."""
    if plan.game in (CLASSIC, FACE_UP):
        cards = [parse_card(c) for c in plan.dealer_dealt]
        way = find_house_way(plan.ruleset)
        preferred = house_way_setting(cards, wheel=plan.ruleset.wheel, way=way)
        return [o[0] for o in card_settings(cards, plan.ruleset)
                if not o[1] and not follows_house_way(
                    cards, [parse_card(c) for c in o[0][0]], [parse_card(c) for c in o[0][1]],
                    wheel=plan.ruleset.wheel, way=way, preferred=preferred)]
    if plan.game == TILES:
        tiles = [parse_tile(t) for t in plan.dealer_dealt]
        tiles_way = pai_gow_tiles.find_house_way(plan.ruleset)
        return [_tile_setting(s) for s in pai_gow_tiles.settings(tiles)
                if not pai_gow_tiles.follows_house_way(tiles, s.high, s.low, way=tiles_way)]
    return []


# ---------------------------------------------------------------------------------------
# One round of each game
# ---------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class Deal:
    """What dealing a round needs from its table: the round id, the ruleset in force, the
    table's RNG, the table's progressive meter and the share of rigged rounds; ``preceding``
    the seats' main wagers on the table's last dealer-banked round (classic pai gow poker),
    seat -> cents; ``meter_follows``: the table's meter was read before, with no award
    taken from it since."""

    round_id: str
    ruleset: Ruleset
    rng: random.Random
    meter: int
    rich: float
    preceding: Mapping[int, int] | None = None
    meter_follows: bool = False
    vocabulary: int = 3
    """The schema id the round is recorded under (below 3: without the facts only schema id
    3 carries)."""
    patrons: Mapping[int, str] | None = None
    """Seat -> patron id of every seat's patron (schema id 3)."""
    preceding_patrons: Mapping[str, int] | None = None
    """Patron -> main wager on the table's last dealer-banked round (schema id 3)."""
    bank: tuple[int | None, bool] | None = None
    """Who banks this round, as the last round passed the bank: (seat or None, co-bank);
    None: not decided before (the first round), chosen here."""


def _seat_numbers(rng: random.Random, most: int) -> list[int]:
    return sorted(rng.sample(range(1, most + 1), rng.randint(1, most)))


def _banker(rng: random.Random, seats: list[int]) -> tuple[int | None, bool, int]:
    if len(seats) < 2 or rng.random() >= PLAYER_BANK_RATE:
        return None, False, 0
    return rng.choice(seats), rng.random() < 0.5, rng.choice(MAIN_CENTS)


def _banked_seats(d: Deal, most: int) -> tuple[list[int], int | None, bool, int]:
    """The seats in play and who banks: as the last round passed the bank (``d.bank``: the
    banker's seat is then in play, with another seat against it), else chosen here."""
    rng = d.rng
    seats = _seat_numbers(rng, most)
    if d.bank is None:
        return seats, *_banker(rng, seats)
    seat, co_bank = d.bank
    if seat is None:
        return seats, None, False, 0
    if seat not in seats:
        seats = sorted([*seats, seat])
    if len(seats) < 2:
        seats = sorted([*seats, rng.choice([s for s in range(1, most + 1) if s != seat])])
    return seats, seat, co_bank, rng.choice(MAIN_CENTS)


def least_cover(plan: RoundPlan) -> int:
    """The least a player banker must put up: the wagers against the bank (the other seats'
    main wagers and the dealer's), half of them (rounded up) when co-banked (procedure (11))."""
    against = sum(s.wagers.get("main", 0) for s in plan.seats if s.seat != plan.banker_seat)
    against += plan.dealer_wager
    return (against + 1) // 2 if plan.co_bank else against


def covered(plan: RoundPlan, rng: random.Random | None = None) -> RoundPlan:
    """``plan`` with the player banker's cover recorded (schema id 3): the least it must put
    up, plus a margin drawn from ``rng`` (a co-banker between half and all of the wagers);
    without ``rng``, a cover already recorded raised to the least when it falls short."""
    if plan.banker_seat is None or plan.vocabulary < 3:
        return plan
    least = least_cover(plan)
    if rng is None:
        return replace(plan, banker_cover=max(least, plan.banker_cover or 0))
    if plan.co_bank:
        whole = least_cover(replace(plan, co_bank=False))
        return replace(plan, banker_cover=rng.randint(least, max(least, whole)))
    return replace(plan, banker_cover=least + rng.choice((0, 1_000, 5_000, 10_000, 50_000)))


def _patrons(d: Deal, seats: Sequence[int]) -> dict[int, str] | None:
    return None if d.patrons is None else {s: d.patrons[s] for s in seats}


def _deal_poker(d: Deal, *, face_up: bool) -> RoundPlan:
    rng, ruleset = d.rng, d.ruleset
    if face_up:
        seats, banker_seat, co_bank, dealer_wager = _seat_numbers(rng, 6), None, False, 0
    else:
        seats, banker_seat, co_bank, dealer_wager = _banked_seats(d, 6)
    deck = list(DECK_53)
    rng.shuffle(deck)
    if rng.random() < d.rich:
        party = len(seats) if rng.random() < DEALER_RIG_SHARE else rng.randrange(len(seats))
        _rig(deck, party * 7, _strong_seven(rng))
    hands = [deck[i * 7:(i + 1) * 7] for i in range(len(seats) + 1)]
    patrons = _patrons(d, seats)
    preceding_wager = (d.preceding or {}).get(banker_seat) if banker_seat is not None else None
    if patrons is not None and banker_seat is not None:
        # the dealer matches the banker patron's wager, wherever the patron sat then; a
        # patron with no wager on that hand is matched by no dealer's wager
        preceding_wager = (d.preceding_patrons or {}).get(patrons[banker_seat])
        if preceding_wager is None:
            dealer_wager = 0
    if preceding_wager is not None:
        dealer_wager = preceding_wager  # pai gow poker procedure (10)
    plays = []
    for k, number in enumerate(seats):
        wagers = {} if number == banker_seat else {"main": rng.choice(MAIN_CENTS)}
        if face_up and rng.random() < 0.3:
            wagers["ace_high"] = rng.choice(SIDE_CENTS)
        if rng.random() < (0.4 if face_up else 0.3):
            wagers["fortune"] = rng.choice(SIDE_CENTS)
        if rng.random() < (0.35 if face_up else 0.3):
            wagers["progressive"] = rng.choice(PROGRESSIVE_CENTS)
        plays.append(SeatPlay(seat=number, dealt=_tokens(hands[k]),
                              sets=_player_cards(hands[k], ruleset, rng), wagers=wagers))
    if (patrons is not None and banker_seat is not None and preceding_wager is not None
            and (d.preceding or {}).get(banker_seat) != preceding_wager):
        # a banker patron who moved seats makes a side wager, so that the record names the
        # patron (a banker with no wager of its own is recorded under no tracking id, and
        # is then told by its seat alone)
        at = seats.index(banker_seat)
        banker_play = plays[at]
        if not banker_play.wagers:
            plays[at] = replace(banker_play, wagers={"fortune": rng.choice(SIDE_CENTS)})
    dealer = hands[-1]
    final = _cards_house_way(dealer, ruleset)
    dealer_sets: tuple[Setting, ...] = (final,)
    if not face_up and rng.random() < RESET_RATE:
        dealer_sets = (rng.choice(card_settings(dealer, ruleset))[0], final)
    changes = 0
    if (banker_seat is not None and d.vocabulary >= 3 and rng.random() < CHANGE_RATE):
        exposed = [o[0] for o in card_settings(dealer, ruleset) if not o[1] and o[0] != final]
        if exposed:  # exposed as first set, then changed to the house way: procedure (9)
            dealer_sets, changes = (rng.choice(exposed), final), 1
    plan = RoundPlan(
        round_id=d.round_id, game=FACE_UP if face_up else CLASSIC, ruleset=ruleset,
        banker_seat=banker_seat, co_bank=co_bank,
        meter=d.meter if any("progressive" in p.wagers for p in plays) else None,
        meter_follows=d.meter_follows,
        dealer_dealt=_tokens(dealer), dealer_sets=dealer_sets, dealer_wager=dealer_wager,
        seats=tuple(plays), preceding_wager=preceding_wager, vocabulary=d.vocabulary,
        patrons=patrons, dealer_changes=changes,
        preceding_patrons=None if patrons is None else dict(d.preceding_patrons or {}))
    return covered(plan, rng)


def _deal_tiles(d: Deal) -> RoundPlan:
    rng, ruleset = d.rng, d.ruleset
    seats = _seat_numbers(rng, 6)
    seats, banker_seat, co_bank, dealer_wager = _banked_seats(d, 6)
    tiles = list(TILES_32)
    rng.shuffle(tiles)
    hands = [tiles[i * 4:(i + 1) * 4] for i in range(len(seats) + 1)]
    plays = []
    for k, number in enumerate(seats):
        wagers = {} if number == banker_seat else {"main": rng.choice(MAIN_CENTS)}
        if number != banker_seat and rng.random() < WITHDRAW_RATE:
            plays.append(SeatPlay(seat=number, dealt=_tokens(hands[k]), action="withdraw",
                                  wagers=wagers))
            continue
        plays.append(SeatPlay(seat=number, dealt=_tokens(hands[k]),
                              sets=_player_tiles(hands[k], ruleset, rng), wagers=wagers))
    return covered(RoundPlan(
        round_id=d.round_id, game=TILES, ruleset=ruleset, banker_seat=banker_seat,
        co_bank=co_bank, meter=None, dealer_dealt=_tokens(hands[-1]),
        dealer_sets=(tiles_house_way(hands[-1], ruleset),), dealer_wager=dealer_wager,
        seats=tuple(plays), vocabulary=d.vocabulary, patrons=_patrons(d, seats)), rng)


def _raises(cards: Sequence[Card], ruleset: Ruleset) -> bool:
    """The simple strategy: raise with a pair or better, or ace-king."""
    name = caribbean_stud.hand_class(rank_high(cards, wheel=ruleset.wheel))
    return name != "high_card"


def _deal_caribbean(d: Deal) -> RoundPlan:
    rng, ruleset = d.rng, d.ruleset
    seats = _seat_numbers(rng, 7)
    deck = list(DECK_52)
    rng.shuffle(deck)
    if rng.random() < d.rich:
        _rig(deck, rng.randrange(len(seats)) * 5, _strong_five(rng))
    hands = [deck[i * 5:(i + 1) * 5] for i in range(len(seats) + 1)]
    dealer = hands[-1]
    dealer_rank = rank_high(dealer, wheel=ruleset.wheel)
    qualifies = caribbean_stud.dealer_qualifies(dealer_rank, ruleset)
    multiple = ruleset.option(caribbean_stud.RAISE_ANTE_MULTIPLE)
    assert isinstance(multiple, int)
    plays = []
    for k, number in enumerate(seats):
        ante = rng.choice(ANTE_CENTS)
        wagers = {"ante": ante}
        if rng.random() < 0.5:
            wagers["progressive"] = CARIBBEAN_PROGRESSIVE_CENTS
        action = "fold"
        if _raises(hands[k], ruleset):
            action = "play"
            wagers["raise"] = multiple * ante
            beaten = qualifies and rank_high(hands[k], wheel=ruleset.wheel) < dealer_rank
            if beaten and rng.random() < CONCEDE_RATE:
                action = "concede"
        plays.append(SeatPlay(seat=number, dealt=_tokens(hands[k]), action=action,
                              wagers=wagers))
    return RoundPlan(
        round_id=d.round_id, game=CARIBBEAN, ruleset=ruleset, banker_seat=None,
        co_bank=False, meter=d.meter if any("progressive" in p.wagers for p in plays) else None,
        meter_follows=d.meter_follows,
        dealer_dealt=_tokens(dealer), dealer_sets=(), dealer_wager=0, seats=tuple(plays),
        vocabulary=d.vocabulary, patrons=_patrons(d, seats))


DEALERS: dict[str, Callable[[Deal], RoundPlan]] = {
    CLASSIC: lambda d: _deal_poker(d, face_up=False),
    FACE_UP: lambda d: _deal_poker(d, face_up=True),
    TILES: _deal_tiles,
    CARIBBEAN: _deal_caribbean,
}
"""How each game's round is dealt and played, by game name."""

METER_BASE_CENTS: dict[str, int] = {
    CLASSIC: 2_500_000, FACE_UP: 2_500_000, CARIBBEAN: 1_000_000,
}
"""Where a table's progressive meter starts, and what it resets to after a percentage
award has emptied it."""
