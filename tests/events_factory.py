"""Hand-built events for tests, so that no test depends on the simulator to make its input."""

from __future__ import annotations

import itertools
import uuid

from schemas import (
    CardsDealt,
    HandSet,
    Payload,
    RoundEnded,
    RoundEvent,
    RoundStarted,
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
