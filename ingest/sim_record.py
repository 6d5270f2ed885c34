"""A simulated round's record: its settlements from the judge's result, and every event in
the order the table devices send them (the protocol replay folds; used by
:mod:`ingest.simulate`).

The order, per round (README "Round documents" describes the document both sides build):

1. ``RoundStarted`` (schema id 3: with the player banker's cover); ``ProgressiveMeterRead``
   once when any seat makes a progressive wager; ``WagerPlaced`` per seat and wager (schema
   id 3: with the patron's tracking id; the dealer's own, seat None, after the seats').
2. ``CardsDealt`` / ``TilesDealt`` per seat, then the dealer's (seat None).
3. Caribbean stud: per seat ``PlayerActed`` fold, or raise followed by ``WagerPlaced`` raise;
   the dealer's ``HandsExposed``; then any ``PlayerActed`` concede.
   Face Up: the dealer's ``HandSet`` and ``HandsExposed`` first, then the seats' ``HandSet``
   and ``HandsExposed``.
   Classic and tiles: the players' ``HandSet`` (re-sets after everyone's first), the player
   banker's; the dealer's ``HandSet`` and ``HandsExposed`` (pai gow poker procedure (4);
   PR pai gow tiles ¶ C), now and then a ``HandChanged`` of the dealer's exposed hand
   (schema id 3, procedure (9)); ``PlayerActed`` withdraw; ``HandsExposed`` of the player
   banker, then of each player (procedure (5), (7); ¶ G).
4. ``WagerSettled`` per wager placed (the main wagers first: the losers, the ties, then the
   winners; then the side wagers seat by seat), ``EnvyBonusPaid`` per (receiver, holder),
   per winning Progressive ``JackpotHit`` and its ``JackpotVerified`` steps, ``BankerSettled``.
5. Schema id 3: ``HandCollected`` per seat in seat order, then the dealer's (seat None):
   every wager of the seat settled, optional ones included (58 Pa. Code § 688a.7(i)), its
   jackpot paid and documented, all five steps recorded (§ 688a.7(h)(3)(i)(B)(4): a payout
   not paid from the table inventory keeps the cards on the table until the documentation
   is completed; Caribbean stud rule 9.5) and the Envy Bonuses its
   hand earned paid (§ 688a.7(h)(2)(iii)); ``Shuffled`` (after all winning hands are paid:
   pai gow poker settlement (17); now and then a deck change); ``BankPassed`` when the next
   round at the table is banked by someone else (pai gow poker and tiles).
6. ``RoundEnded``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ingest.sim_deal import CARIBBEAN, CLASSIC, FACE_UP, RoundPlan, SeatPlay
from replay.cards import parse_card
from replay.games import caribbean_stud
from replay.games.face_up_pai_gow import seven_card_class
from replay.games.pai_gow_poker import rank_high
from schemas import (
    JACKPOT_STEPS,
    BankerSettled,
    BankPassed,
    CardsDealt,
    EnvyBonusPaid,
    HandChanged,
    HandCollected,
    HandSet,
    HandsExposed,
    JackpotHit,
    JackpotVerified,
    Payload,
    PlayerActed,
    ProgressiveMeterRead,
    RoundEnded,
    RoundStarted,
    Shuffled,
    TilesDealt,
    WagerPlaced,
    WagerSettled,
)

FLOORPERSON = "floorperson"
DEALER_ROLE = "dealer"
STEP_ROLES = {"hand_verified": FLOORPERSON, "light_illuminated": DEALER_ROLE,
              "validated": FLOORPERSON, "paid": DEALER_ROLE, "documented": FLOORPERSON}
"""Who takes each jackpot verification step (58 Pa. Code § 688a.7(h)(3)): the floorperson
verifies, validates and documents; the dealer lights the progressive light and pays."""
assert tuple(STEP_ROLES) == JACKPOT_STEPS


@dataclass(frozen=True, slots=True, kw_only=True)
class Staff:
    """Who records a round's events: the dealer (decisions, settlements), the table's device
    (wagers sensed, cards dealt), the floorperson (jackpot validation), and the meter's id."""

    dealer: str
    device: str
    floorperson: str
    meter_id: str
    seat_order: tuple[int, ...] = ()
    """The table's seats from the dealer's far right, right to left (its layout,
    replay/layouts.py): the order the dealer exposes and pays in; empty: by seat number."""


def turns(staff: Staff, plan: RoundPlan) -> dict[int, int]:
    """Each seat's turn when the dealer goes round the table: pai gow tiles from the
    dealer's far right (PR pai gow tiles ¶ G, ¶ J); classic pai gow poker from the player
    banker's right side, or the dealer's own right side when the dealer banks (procedure
    (7)); docs/rules.md 6a.21. A seat the layout does not list comes after, by number."""
    order = list(staff.seat_order)
    banker = plan.banker_seat
    if plan.game == CLASSIC and banker in order:
        at = order.index(banker)
        order = order[at + 1:] + order[:at]
    known = {seat: i for i, seat in enumerate(order)}
    return {s.seat: known.get(s.seat, len(order) + s.seat) for s in plan.seats}


Entry = tuple[str, Payload]
"""An event before its envelope: who recorded it, and what."""


def hand_class(plan: RoundPlan, seat: SeatPlay | None) -> str | None:
    """The paytable class of a party's dealt hand: the seven-card class in the pai gow poker
    games (docs/rules.md 6a.10), the poker class in Caribbean stud."""
    dealt = plan.dealer_dealt if seat is None else seat.dealt
    cards = [parse_card(c) for c in dealt]
    if plan.game == CARIBBEAN:
        return caribbean_stud.hand_class(rank_high(cards, wheel=plan.ruleset.wheel))
    found = seven_card_class(cards)
    return None if found is None else found.value


def qualifying(plan: RoundPlan, seat: SeatPlay) -> bool:
    """Whether the seat holds a Qualifying Wager (a Fortune or Progressive of at least the
    ruleset's ``qualifying_wager_cents``: § 688a.1)."""
    least = plan.ruleset.options.get("qualifying_wager_cents")
    if not isinstance(least, int):
        return False
    return max(seat.wagers.get("fortune", 0), seat.wagers.get("progressive", 0)) >= least


def envy_amount(plan: RoundPlan, seat: SeatPlay | None) -> int:
    """The Envy Bonus a party's hand earns the others (0 below four of a kind)."""
    table = plan.ruleset.paytables.get("envy")
    name = hand_class(plan, seat)
    if table is None or name is None or name not in table:
        return 0
    fixed = table[name].fixed_cents
    return fixed or 0


def _outcome(net: int) -> str:
    return "win" if net > 0 else "loss" if net < 0 else "push"


def _settle_order(p: WagerSettled) -> int:
    """The order in which the main wagers are settled, as the money goes: collections
    (a net below 0), ties (0: a push, a void, a win whose commission took it all), then
    payments."""
    return 0 if p.net_cents < 0 else 1 if p.net_cents == 0 else 2


def settlements(plan: RoundPlan, result: dict[str, Any], staff: Staff) -> list[Payload]:
    """Every settlement the judge's ``result`` calls for, in the protocol's order."""
    judged = {s["seat"]: s for s in result["seats"]}
    mains: list[WagerSettled] = []
    out: list[Payload] = []
    for seat in plan.seats:
        wagers = judged[seat.seat]["wagers"]
        assert set(wagers) == set(seat.wagers), (plan.round_id, seat, wagers)
        for name in seat.wagers:
            e = wagers[name]
            settled = WagerSettled(seat=seat.seat, wager=name, outcome=e["outcome"],
                                   net_cents=e["net"], commission_cents=e["commission"])
            (mains if name == "main" else out).append(settled)
    # the losers collected, then the ties, then the winners paid (pai gow poker settlement
    # (4), (7); 58 Pa. Code § 688a.7(f)(1); PR pai gow tiles ¶ H, ¶ J); the side wagers after
    # the winners paid in turn around the table (PR pai gow tiles ¶ J; settlement (12)(b))
    turn = turns(staff, plan)
    ordered: list[Payload] = [*sorted(mains, key=lambda p: (_settle_order(p),
                                                            turn.get(p.seat or 0, 0)))]
    out[:0] = ordered
    if plan.dealer_wager:
        net = result["dealer"]["net"]
        out.append(WagerSettled(seat=None, wager="main", outcome=_outcome(net), net_cents=net,
                                commission_cents=0))
    for receiver in plan.seats:
        total = judged[receiver.seat]["envy"]
        if not total:
            continue
        paid = [(holder.seat, envy_amount(plan, holder)) for holder in plan.seats
                if holder is not receiver]
        paid = [(h, a) for h, a in paid if a]
        assert sum(a for _, a in paid) == total, (plan.round_id, receiver.seat, paid, total)
        out += [EnvyBonusPaid(seat=receiver.seat, for_seat=h, amount_cents=a) for h, a in paid]
    table = plan.ruleset.paytables.get("progressive", {})
    for seat in plan.seats:
        e = judged[seat.seat]["wagers"].get("progressive")
        if e is None or e["outcome"] != "win":
            continue
        hand = hand_class(plan, seat)
        assert hand is not None and hand in table
        from_meter = table[hand].meter_bps is not None
        out.append(JackpotHit(seat=seat.seat, hand=hand, award_cents=e["net"]))
        for step, role in STEP_ROLES.items():
            out.append(JackpotVerified(
                seat=seat.seat, step=step, role=role,
                employee_id=staff.floorperson if role == FLOORPERSON else staff.dealer,
                paid_from=("meter" if from_meter else "table_inventory") if step == "paid"
                else None))
    banker = result.get("banker")
    if banker is not None:
        out.append(BankerSettled(seat=banker["seat"], net_cents=banker["net"],
                                 commission_cents=banker["commission"]))
    return out


def meter_awards(settled: Sequence[Payload]) -> int:
    """What the round's jackpots took from the progressive meter."""
    hits = {p.seat: p.award_cents for p in settled if isinstance(p, JackpotHit)}
    return sum(hits[p.seat] for p in settled
               if isinstance(p, JackpotVerified) and p.step == "paid" and p.paid_from == "meter")


def protocol(plan: RoundPlan, settled: Sequence[Payload], staff: Staff) -> list[Entry]:
    """Every event of the round in the order the table sends them (see the module doc)."""
    dealer, device = staff.dealer, staff.device
    out: list[Entry] = [(dealer, RoundStarted(game=plan.game, dealer_id=dealer,
                                              banker_seat=plan.banker_seat,
                                              co_bank=plan.co_bank,
                                              banker_cover_cents=plan.banker_cover))]
    if plan.meter is not None:
        out.append((device, ProgressiveMeterRead(meter_cents=plan.meter,
                                                 meter_id=staff.meter_id)))
    for s in plan.seats:
        out += [(device, WagerPlaced(seat=s.seat, wager=name, amount_cents=amount,
                                     patron_id=patron(plan, s.seat)))
                for name, amount in s.wagers.items() if name != "raise"]
    if plan.dealer_wager:
        out.append((device, WagerPlaced(seat=None, wager="main", amount_cents=plan.dealer_wager)))
    for seat, hand in [*((s.seat, s.dealt) for s in plan.seats), (None, plan.dealer_dealt)]:
        out.append((device, TilesDealt(seat=seat, tiles=hand) if plan.uses_tiles
                    else CardsDealt(seat=seat, cards=hand)))
    if plan.game == CARIBBEAN:
        out += _caribbean(plan, dealer)
    elif plan.game == FACE_UP:
        out += [(dealer, HandSet(seat=None, high=h, low=lo)) for h, lo in plan.dealer_sets]
        out.append((dealer, HandsExposed(seat=None)))
        out += [(device, HandSet(seat=s.seat, high=h, low=lo))
                for s in plan.seats for h, lo in s.sets]
        out += [(dealer, HandsExposed(seat=s.seat)) for s in plan.seats]
    else:
        out += _banked(plan, dealer, device, turns(staff, plan))
    out += [(p.employee_id if isinstance(p, JackpotVerified) else dealer, p) for p in settled]
    out += closing(plan, dealer)
    out.append((dealer, RoundEnded()))
    return out


def patron(plan: RoundPlan, seat: int) -> str | None:
    """The tracking id of the patron at ``seat`` (None: not recorded)."""
    return None if plan.patrons is None else plan.patrons[seat]


def closing(plan: RoundPlan, dealer: str) -> list[Entry]:
    """Schema id 3, after the last settlement: every seat's hand collected in seat order, the
    dealer's last; the reshuffle; the bank passed (see the module doc). Nothing below 3."""
    if plan.vocabulary < 3:
        return []
    out: list[Entry] = [(dealer, HandCollected(seat=s.seat)) for s in plan.seats]
    out.append((dealer, HandCollected(seat=None)))
    if plan.shuffle is not None:
        kind, deck_id = plan.shuffle
        out.append((dealer, Shuffled(kind=kind, deck_id=deck_id)))
    if plan.bank_passed is not None:
        to_seat, reason = plan.bank_passed
        out.append((dealer, BankPassed(to_seat=to_seat, reason=reason)))
    return out


def _caribbean(plan: RoundPlan, dealer: str) -> list[Entry]:
    out: list[Entry] = []
    for s in plan.seats:
        if s.action == "fold":
            out.append((dealer, PlayerActed(seat=s.seat, action="fold")))
        else:
            out.append((dealer, PlayerActed(seat=s.seat, action="raise")))
            out.append((dealer, WagerPlaced(seat=s.seat, wager="raise",
                                            amount_cents=s.wagers["raise"],
                                            patron_id=patron(plan, s.seat))))
    out.append((dealer, HandsExposed(seat=None)))
    out += [(dealer, PlayerActed(seat=s.seat, action="concede"))
            for s in plan.seats if s.action == "concede"]
    return out


def _banked(plan: RoundPlan, dealer: str, device: str, turn: dict[int, int]) -> list[Entry]:
    """Classic pai gow poker and tiles: players set, then the banker; the dealer's hand is
    set and exposed (and now and then changed), then the banker's exposed, then the players'
    in turn around the table (``turn``: :func:`turns`) (pai gow poker procedure (1)-(9);
    PR pai gow tiles ¶ A-G)."""
    players = [s for s in plan.seats if s.seat != plan.banker_seat]
    banker = [s for s in plan.seats if s.seat == plan.banker_seat]
    out: list[Entry] = [(device, HandSet(seat=s.seat, high=s.sets[0][0], low=s.sets[0][1]))
                        for s in players if s.sets]
    out += [(device, HandSet(seat=s.seat, high=h, low=lo)) for s in players for h, lo in s.sets[1:]]
    out += [(device, HandSet(seat=s.seat, high=h, low=lo)) for s in banker for h, lo in s.sets]
    kept = len(plan.dealer_sets) - plan.dealer_changes
    out += [(dealer, HandSet(seat=None, high=h, low=lo)) for h, lo in plan.dealer_sets[:kept]]
    out.append((dealer, HandsExposed(seat=None)))
    out += [(dealer, HandChanged(seat=None, high=h, low=lo)) for h, lo in plan.dealer_sets[kept:]]
    out += [(dealer, PlayerActed(seat=s.seat, action="withdraw"))
            for s in players if s.action == "withdraw"]
    out += [(dealer, HandsExposed(seat=s.seat)) for s in banker]
    out += [(dealer, HandsExposed(seat=s.seat))
            for s in sorted(players, key=lambda s: turn[s.seat]) if s.action != "withdraw"]
    return out
