"""Cases: what the analysts did about each flag, kept append-only with who and when.

A case is keyed by :func:`flag_key`, which is stable across re-runs of the checks (the check and
the coordinates of what it flagged, not a row number), so a case follows its flag when the
checks run again. Its history is one append-only journal, ``HOME/cases.jsonl``
(dashboard/journal.py), of two kinds of entry:

- ``acknowledged``: an analyst has seen the flag and is on it (new -> acknowledged);
- ``disposed``: a disposition, one of :data:`DISPOSITIONS`. ``note`` only adds a remark (the
  status stays as it was); the others resolve the case, and a later disposition supersedes an
  earlier one (the history keeps both): a case resolved as a dealer error may later record the
  amount recovered.

Only the roles in :data:`dashboard.context.CAN_CHANGE_CASES` (analyst, admin) may write a case:
a regulator or dispute staff gets :class:`PermissionError` here, whatever the page shows.
Notes are the analyst's own words, kept exactly as typed (at most :data:`MAX_NOTE` characters;
line breaks and tabs allowed, other control characters refused); pages show them as literal
text.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from dashboard.context import User
from dashboard.journal import Journal, JournalError

CASES_FILE = "cases.jsonl"

DISPOSITIONS: tuple[str, ...] = (
    "dealer_error", "patron_error", "false_alarm", "amount_recovered", "note",
)
DISPOSITION_WORDS: Mapping[str, str] = {
    "dealer_error": "dealer error: the dealer paid, collected, set or dealt wrongly",
    "patron_error": "patron error: the patron's own mistake, not the dealer's",
    "false_alarm": "false alarm: on review, nothing was wrong",
    "amount_recovered": "amount recovered: the money at stake was paid back or collected",
    "note": "note: a remark for the record; the case stays as it is",
}
RESOLVING = frozenset(DISPOSITIONS) - {"note"}

MAX_NOTE = 2000
MAX_KEY = 1000
MAX_AMOUNT_CENTS = 10**12
"""Amounts recovered are below $10,000,000,000.00 (10**12 cents): anything larger is a typing
error, refused."""

FLAG_KEY_FIELDS = ("check_id", "casino", "table_id", "round_id", "seat", "wager", "direction")
Status = Literal["new", "acknowledged", "resolved"]


class CaseError(ValueError):
    """A case action that cannot be done: a plain sentence naming what and what to do."""


def _key_part(field: str, value: Any) -> str:
    if value is None or type(value).__name__ in ("NAType", "NaTType"):
        return "-"
    if isinstance(value, bool):
        raise ValueError(f"flag_key: {field} is a boolean ({value!r})")
    if isinstance(value, numbers.Integral):
        return str(int(value))
    if isinstance(value, numbers.Real):
        number = float(value)
        if math.isnan(number):
            return "-"
        if number.is_integer():
            return str(int(number))
        raise ValueError(f"flag_key: {field} is not a whole number ({value!r})")
    if isinstance(value, str):
        text = value.replace("\\", "\\\\").replace("|", "\\|")
        return "\\-" if text == "-" else text
    raise ValueError(f"flag_key: {field} has an unexpected type {type(value).__name__}")


def flag_key(flag: Mapping[str, Any]) -> str:
    """``check_id|casino|table_id|round_id|seat|wager|direction`` of one flag (a row of
    ``checks/flags.parquet``), with ``-`` for a missing value: the same flag gets the same key
    every time the checks run. A ``|`` or ``\\`` inside a value is escaped with ``\\`` (and a
    value that is a lone ``-`` is written ``\\-``), so two different flags never share a key.
    A seat read back as a float (a column with nulls) counts as the same whole number."""
    missing = [f for f in ("check_id", "casino", "table_id", "round_id") if flag.get(f) is None]
    if missing:
        raise ValueError(f"flag_key: the flag has no {', '.join(missing)}")
    return "|".join(_key_part(f, flag.get(f)) for f in FLAG_KEY_FIELDS)


@dataclass(frozen=True, slots=True, kw_only=True)
class CaseState:
    """Where one case stands after all its entries."""

    key: str
    status: Status
    disposition: str | None
    """The latest resolving disposition (None while not resolved; notes do not count)."""
    amount_recovered_cents: int | None
    """The amount of that disposition when it is ``amount_recovered``, else None."""
    by: str
    """Who wrote the latest entry (notes included)."""
    at: str
    """When (UTC, ISO-8601)."""
    entries: int


def _printable(what: str, text: object, limit: int, *, lines: bool) -> str:
    if not isinstance(text, str):
        raise CaseError(f"the {what} must be text, not {type(text).__name__}")
    if len(text) > limit:
        raise CaseError(f"the {what} is {len(text):,} characters long; keep it to {limit:,}")
    allowed = "\n\t" if lines else ""
    bad = sorted({c for c in text if (ord(c) < 32 or 127 <= ord(c) < 160) and c not in allowed})
    if bad:
        raise CaseError(f"the {what} contains control characters ({', '.join(map(repr, bad))}); "
                        "remove them" + (" (line breaks and tabs are fine)" if lines else ""))
    return text


def _check_amount(disposition: str, amount: object) -> int | None:
    if disposition != "amount_recovered":
        if amount is not None:
            raise CaseError(f"an amount goes with amount_recovered only, not with {disposition}")
        return None
    if type(amount) is not int:
        raise CaseError("amount_recovered needs the amount in whole cents, as an integer "
                        f"(got {amount!r}): e.g. 2500 for $25.00")
    if not 0 < amount < MAX_AMOUNT_CENTS:
        raise CaseError(f"the amount recovered must be more than 0 and less than "
                        f"{MAX_AMOUNT_CENTS:,} cents, not {amount:,}")
    return amount


def _fold(path: Path, entries: list[dict[str, Any]]) -> dict[str, CaseState]:
    states: dict[str, CaseState] = {}
    for entry in entries:
        key, action = entry.get("key"), entry.get("action")
        if not isinstance(key, str):
            raise JournalError(f"{path} line {entry.get('seq')}: the entry names no case",
                               path=path, line=entry.get("seq"))
        before = states.get(key)
        status: Status = before.status if before else "new"
        disposition = before.disposition if before else None
        amount = before.amount_recovered_cents if before else None
        if action == "acknowledged":
            if status == "new":
                status = "acknowledged"
        elif action == "disposed" and entry.get("disposition") in DISPOSITIONS:
            if entry["disposition"] in RESOLVING:
                status, disposition = "resolved", entry["disposition"]
                amount = entry.get("amount_recovered_cents")
        else:
            raise JournalError(f"{path} line {entry.get('seq')}: unknown case action "
                               f"{action!r} / disposition {entry.get('disposition')!r}",
                               path=path, line=entry.get("seq"))
        states[key] = CaseState(key=key, status=status, disposition=disposition,
                                amount_recovered_cents=amount, by=str(entry.get("by", "")),
                                at=str(entry.get("at", "")),
                                entries=(before.entries if before else 0) + 1)
    return states


class Cases:
    """The cases of one dashboard home (``HOME/cases.jsonl``)."""

    def __init__(self, home: Path) -> None:
        self.home = Path(home)
        self.journal = Journal(self.home / CASES_FILE)

    def _may_change(self, by: User, doing: str) -> None:
        if not isinstance(by, User) or not by.can_change_cases:
            role = getattr(by, "role", "?")
            raise PermissionError(f"{getattr(by, 'name', by)!r} ({role}) may not {doing}: only "
                                  "an analyst or an admin changes cases")

    def acknowledge(self, key: str, *, by: User, note: str = "") -> dict[str, Any]:
        """Mark a new flag as seen and being worked; refuses a case already acknowledged or
        resolved (naming who did it and when). Returns the entry as written."""
        self._may_change(by, "acknowledge a flag")
        _printable("flag key", key, MAX_KEY, lines=False)
        _printable("note", note, MAX_NOTE, lines=True)
        if not key:
            raise CaseError("the flag key is empty")

        def guard(entries: list[dict[str, Any]]) -> None:
            state = _fold(self.journal.path, entries).get(key)
            if state is not None and state.status != "new":
                raise CaseError(f"this flag is {state.status} already (latest by {state.by} at "
                                f"{state.at}); record a disposition or a note instead")

        return self.journal.append(
            {"key": key, "action": "acknowledged", "disposition": None, "note": note,
             "amount_recovered_cents": None, "by": by.name, "role": by.role}, guard=guard)

    def dispose(self, key: str, *, by: User, disposition: str, note: str = "",
                amount_recovered_cents: int | None = None) -> dict[str, Any]:
        """Record a disposition (one of :data:`DISPOSITIONS`). ``amount_recovered`` needs a
        positive integer amount in cents below 10**12; ``note`` needs a note and changes no
        status; the others resolve the case (a case not yet acknowledged may be resolved
        directly). Returns the entry as written."""
        self._may_change(by, "record a disposition")
        _printable("flag key", key, MAX_KEY, lines=False)
        if not key:
            raise CaseError("the flag key is empty")
        if disposition not in DISPOSITIONS:
            raise CaseError(f"{disposition!r} is not a disposition: one of "
                            f"{', '.join(DISPOSITIONS)}")
        _printable("note", note, MAX_NOTE, lines=True)
        if disposition == "note" and not note.strip():
            raise CaseError("a note needs some text")
        amount = _check_amount(disposition, amount_recovered_cents)

        def guard(entries: list[dict[str, Any]]) -> None:
            _fold(self.journal.path, entries)  # a case file that cannot be folded is refused

        return self.journal.append(
            {"key": key, "action": "disposed", "disposition": disposition, "note": note,
             "amount_recovered_cents": amount, "by": by.name, "role": by.role}, guard=guard)

    def history(self, key: str) -> list[dict[str, Any]]:
        """Every entry of one case, oldest first ([] for a flag nobody has touched)."""
        return self.journal.entries(where=lambda entry: entry.get("key") == key)

    def states(self) -> dict[str, CaseState]:
        """Where every case touched so far stands, by key (flags absent are "new")."""
        return _fold(self.journal.path, self.journal.entries())


__all__ = [
    "DISPOSITIONS",
    "DISPOSITION_WORDS",
    "CaseError",
    "CaseState",
    "Cases",
    "flag_key",
]
