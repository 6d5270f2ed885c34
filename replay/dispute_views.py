"""The values of a dispute report (replay/dispute.py): one round's hands, wagers, timeline,
findings, flags, provenance and proof, as frozen keyword-only dataclasses that the
renderings (replay/dispute_text.py, replay/dispute_html.py) and the dashboard's Round page
read. Money is integer cents.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from replay.errors import ReplayError

VERIFIED = "Verified: "
NOT_VERIFIED = "NOT VERIFIED: "
"""How :attr:`RoundReport.provenance` begins: the data come from a log that verified, or
not (a log that did not verify, replayed anyway; no manifest; files that are not replay's)."""


class ReportError(ReplayError):
    """The report cannot be made: the message says what is missing and what to run."""


@dataclass(frozen=True, slots=True, kw_only=True)
class HandView:
    """One party's hand: the tokens dealt and as set, their ranks, foul, the house way (the
    dealer's), the decision, and the result against the banker's hand with why, in words
    with the rule (replay/dispute_why.py)."""

    position: str
    seat: int | None
    cards: tuple[str, ...]
    high: tuple[str, ...]
    low: tuple[str, ...]
    high_rank: str | None
    low_rank: str | None
    foul: bool | None
    house_way: bool | None
    house_way_high: tuple[str, ...]
    house_way_low: tuple[str, ...]
    action: str | None
    result: str | None
    why: str | None


@dataclass(frozen=True, slots=True, kw_only=True)
class WagerView:
    """One wager: recorded against expected settlement, in integer cents. The expected
    settlement is the house's default with its lawful range (``expected_*_min_cents`` to
    ``expected_*_max_cents``, docs/rules.md 6a.19; None: the point). ``difference_cents`` is
    how far the recorded net lies outside the lawful range (recorded minus its nearer end;
    0 inside it; None when either is missing)."""

    seat: int | None
    position: str
    wager: str
    amount_cents: int
    recorded_outcome: str | None
    recorded_net_cents: int | None
    recorded_commission_cents: int | None
    expected_outcome: str | None
    expected_net_cents: int | None
    expected_commission_cents: int | None
    difference_cents: int | None
    expected_net_min_cents: int | None = None
    expected_net_max_cents: int | None = None
    expected_commission_min_cents: int | None = None
    expected_commission_max_cents: int | None = None

    @property
    def commission_lawful(self) -> bool:
        """Whether the recorded commission is within its lawful range (true when the wager
        was not judged: there is nothing to compare)."""
        if self.expected_outcome is None or self.expected_commission_cents is None:
            return True
        low = _or(self.expected_commission_min_cents, self.expected_commission_cents)
        high = _or(self.expected_commission_max_cents, self.expected_commission_cents)
        return low <= (self.recorded_commission_cents or 0) <= high


def _or(value: int | None, point: int) -> int:
    return point if value is None else value


@dataclass(frozen=True, slots=True, kw_only=True)
class EventView:
    """One event of the round's timeline (``timeline.parquet``)."""

    table_seq: int
    occurred_at: str
    recorded_by: str
    event: str
    summary: str
    event_id: str
    superseded: bool


@dataclass(frozen=True, slots=True, kw_only=True)
class ProofView:
    """The proof that ties the round's events to the signed checkpoint: whether every event
    of the timeline was proved, one sentence saying so (or why there is no proof), the
    checkpoint (its text, and tree size for the lone ingest's chain), the key it was checked
    with, each event's proof and the whole proof document (schemas/proof.py)."""

    verified: bool
    line: str
    tree_size: int | None
    checkpoint: str | None
    key: str | None
    events: tuple[Mapping[str, Any], ...]
    document: Mapping[str, Any] | None = None
    """The whole proof as ``python -m ingest verify --proof`` reads it (None: no proof)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class RoundReport:
    """Everything a dispute needs about one round (see the module docstring)."""

    round_id: str
    casino: str
    table_id: str
    game: str | None
    ruleset: str | None
    ruleset_words: str
    dealt_at: str | None
    dealer_id: str | None
    banker: str | None
    evaluated: bool
    problems: tuple[str, ...]
    notation: str | None
    hands: tuple[HandView, ...]
    wagers: tuple[WagerView, ...]
    timeline: tuple[EventView, ...]
    findings: tuple[str, ...]
    flags: tuple[Mapping[str, Any], ...]
    provenance: str
    proof: ProofView | None

    @property
    def verified(self) -> bool:
        """Whether the data come from a log that verified (:attr:`provenance`)."""
        return self.provenance.startswith(VERIFIED)
