"""Hand-built events for tests, so that no test depends on the simulator to make its input."""

from __future__ import annotations

import itertools
import uuid

from schemas import (
    BankerSettled,
    CardsDealt,
    EnvyBonusPaid,
    HandSet,
    HandsExposed,
    Payload,
    PlayerActed,
    ProgressiveMeterRead,
    RoundEnded,
    RoundEvent,
    RoundStarted,
    TilesDealt,
    WagerPlaced,
    WagerSettled,
)

T0 = 1_795_888_800_000_000  # 2026-11-28 18:00 UTC


class Table:
    """Makes the envelopes of one table's events: ids, sequence numbers and times."""

    def __init__(self, table_id: str = "T01", casino: str = "C01") -> None:
        self.table_id, self.casino = table_id, casino
        self.seq = itertools.count(1)

    def event(self, round_id: str, payload: Payload, *, seq: int | None = None) -> RoundEvent:
        n = next(self.seq) if seq is None else seq
        return RoundEvent(
            event_id=str(uuid.uuid5(uuid.NAMESPACE_URL, f"{self.table_id}/{round_id}/{n}")),
            casino=self.casino, table_id=self.table_id, table_seq=n, round_id=round_id,
            occurred_at_us=T0 + n * 1_000_000, recorded_by="E011", payload=payload,
        )

    def round(self, round_id: str, *, dealer: tuple[str, str], seats: dict[int, dict],
              ) -> list[RoundEvent]:
        """A whole dealer-banked round. ``dealer`` and each seat's ``hand`` are
        (high, low) in notation; each seat also has ``main`` (cents) and ``settled``
        (outcome, net, commission) as the table recorded it, or no ``settled`` key."""
        out = [self.event(round_id, RoundStarted(game="pai_gow_poker", dealer_id="E011"))]
        for seat, s in seats.items():
            out.append(self.event(round_id, WagerPlaced(seat=seat, wager="main",
                                                        amount_cents=s["main"])))
        for seat, s in seats.items():
            high, low = s["hand"]
            out.append(self.event(round_id, CardsDealt(seat=seat,
                                                       cards=tuple((high + " " + low).split()))))
        out.append(self.event(round_id, CardsDealt(
            seat=None, cards=tuple((dealer[0] + " " + dealer[1]).split()))))
        for seat, s in seats.items():
            high, low = s["hand"]
            out.append(self.event(round_id, HandSet(seat=seat, high=tuple(high.split()),
                                                    low=tuple(low.split()))))
        out.append(self.event(round_id, HandSet(seat=None, high=tuple(dealer[0].split()),
                                                low=tuple(dealer[1].split()))))
        for seat, s in seats.items():
            if "settled" in s:
                outcome, net, commission = s["settled"]
                out.append(self.event(round_id, WagerSettled(
                    seat=seat, wager="main", outcome=outcome, net_cents=net,
                    commission_cents=commission)))
        out.append(self.event(round_id, RoundEnded()))
        return out


def _settling_order(item: tuple[tuple[int | None, str], tuple[str, int, int]]) -> int:
    """The seats' main wagers first, losers, then ties, then winners (pai gow poker
    settlement (4), (7)), as the money goes whatever the word recorded (a net below 0
    collected, 0 a tie, above 0 paid); every other settlement after them, in the order
    given."""
    (seat, wager), (_, net, _) = item
    if seat is None or wager != "main":
        return 3
    return 0 if net < 0 else 1 if net == 0 else 2


def events_of_document(table: Table, doc: dict, *, settle: dict | None = None,
                       meter: int | None = None, envy: dict | None = None,
                       banker: tuple[int, int] | None = None) -> list[RoundEvent]:
    """The events a table would record for a round document (README "Round documents"),
    in the order of the event protocol: start, meter, wagers, deal, decisions, sets, a
    withdrawal, exposure, settlements (the seats' main wagers losers first, then ties, then
    winners) (``settle``: (seat or None, wager) -> (outcome, net, commission)),
    Envy Bonuses (``envy``: (seat, for_seat) -> cents), the banker's account (``banker``:
    (net, commission)), end. Hand-built: no rules engine is consulted."""
    rid = doc["round_id"]
    who_banks = doc.get("banker", "dealer")
    seat_b = None if who_banks == "dealer" else who_banks["seat"]
    co = False if who_banks == "dealer" else who_banks.get("co_bank", False)
    out = [table.event(rid, RoundStarted(game=doc["game"], dealer_id="E011",
                                         ruleset=doc.get("ruleset"), banker_seat=seat_b,
                                         co_bank=co))]
    if doc.get("progressive_meter", meter) is not None:
        out.append(table.event(rid, ProgressiveMeterRead(
            meter_cents=doc.get("progressive_meter", meter))))
    dealer = doc["dealer"]
    late = []
    for s in doc["seats"]:
        for name, amount in s.get("wagers", {}).items():
            placed = WagerPlaced(seat=s["seat"], wager=name, amount_cents=amount)
            (late if name == "raise" else out).append((s["seat"], placed))
    out = [e if isinstance(e, RoundEvent) else table.event(rid, e[1]) for e in out]
    if "wager" in dealer:
        out.append(table.event(rid, WagerPlaced(seat=None, wager="main",
                                                amount_cents=dealer["wager"])))
    tiles = "tiles" in dealer
    for who, holding in [*[(s["seat"], s) for s in doc["seats"]], (None, dealer)]:
        if tiles:
            out.append(table.event(rid, TilesDealt(seat=who, tiles=tuple(holding["tiles"]))))
        else:
            out.append(table.event(rid, CardsDealt(seat=who, cards=tuple(holding["cards"]))))
    for seat, placed in late:
        out.append(table.event(rid, PlayerActed(seat=seat, action="raise")))
        out.append(table.event(rid, placed))
    for s in doc["seats"]:
        if s.get("action") == "fold":
            out.append(table.event(rid, PlayerActed(seat=s["seat"], action=s["action"])))
    parties = [*[(s["seat"], s) for s in doc["seats"]], (None, dealer)]
    if doc["game"] == "face_up_pai_gow":  # the dealer sets first (58 Pa. Code § 688a.7(b))
        parties = parties[-1:] + parties[:-1]
    for who, holding in parties:
        if "high" in holding:
            out.append(table.event(rid, HandSet(seat=who, high=tuple(holding["high"]),
                                                low=tuple(holding["low"]))))
    for s in doc["seats"]:  # a tiles withdrawal, after the dealer has set (PR ¶ F)
        if s.get("action") == "withdraw":
            out.append(table.event(rid, PlayerActed(seat=s["seat"], action=s["action"])))
    out.append(table.event(rid, HandsExposed(seat=None)))
    for s in doc["seats"]:
        if s.get("action") == "concede":
            out.append(table.event(rid, PlayerActed(seat=s["seat"], action="concede")))
    for (seat, wager), (outcome, net, commission) in sorted(
            (settle or {}).items(), key=_settling_order):
        out.append(table.event(rid, WagerSettled(seat=seat, wager=wager, outcome=outcome,
                                                 net_cents=net, commission_cents=commission)))
    for (seat, for_seat), amount in (envy or {}).items():
        out.append(table.event(rid, EnvyBonusPaid(seat=seat, for_seat=for_seat,
                                                  amount_cents=amount)))
    if banker is not None:
        out.append(table.event(rid, BankerSettled(seat=seat_b, net_cents=banker[0],
                                                  commission_cents=banker[1])))
    out.append(table.event(rid, RoundEnded()))
    return out
