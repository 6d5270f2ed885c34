"""Round documents: the JSON form of a round that ``python -m replay adjudicate`` judges.

The layout is in the README ("Round documents"). This module holds what every game's
reader shares: the error that names what is wrong, and readers for amounts, cards and seats
that say where in the document a bad value is. Pure: the CLI parses JSON, this code only
sees the resulting dicts and lists.
"""

from __future__ import annotations

import reprlib
from collections.abc import Mapping, Sequence
from typing import Any

from replay.cards import Card, parse_card
from replay.errors import CardError, ReplayError

# Limits on what ``python -m replay adjudicate`` reads (README "Round documents"): a round
# document is a few kilobytes and four levels deep, so these leave room for any real one
# while keeping memory and time bounded.
MAX_DOCUMENT_BYTES = 1 << 20
"""One round document, or one line of JSON lines, in bytes (1 MiB)."""
MAX_DEPTH = 64
"""Nesting of arrays and objects, checked before the JSON is parsed."""
MAX_INT_DIGITS = 19
"""Digits of any integer in a document: cents and seat numbers fit in 64 bits."""
MAX_CENTS = 2**63 - 1
"""The largest amount: the log's events carry cents as 64-bit integers."""
LIMITS = (f"at most {MAX_DOCUMENT_BYTES >> 20} MiB per document or per line of JSON lines, "
          f"nesting at most {MAX_DEPTH} deep, integers of at most {MAX_INT_DIGITS} digits")


class DocumentError(ReplayError, ValueError):
    """A round document that cannot be judged; the message says what and where."""


class _Shown(reprlib.Repr):
    def repr_int(self, x: int, level: int) -> str:
        if x.bit_length() > 64:  # repr() of a huge int is slow, or refused past 4300 digits
            return f"<an integer of {x.bit_length()} bits>"
        return repr(x)


_SHOWN = _Shown()
_SHOWN.maxlevel, _SHOWN.maxdict, _SHOWN.maxlist, _SHOWN.maxtuple = 3, 6, 8, 8
_SHOWN.maxstring, _SHOWN.maxother, _SHOWN.maxlong = 80, 80, 40


def shown(value: object) -> str:
    """``repr(value)`` cut short, for an error message that quotes a value of the document:
    a hostile document can hold a megabyte of text where a card belongs."""
    return _SHOWN.repr(value)


def field(doc: Mapping[str, Any], name: str, where: str) -> Any:
    """``doc[name]``, or DocumentError saying it is missing at ``where``."""
    if not isinstance(doc, Mapping):
        raise DocumentError(f"{where} must be an object, got {shown(doc)}")
    if name not in doc:
        raise DocumentError(f"{where} has no {name!r}")
    return doc[name]


def mapping(
    value: object, where: str, allowed: frozenset[str], required: frozenset[str] = frozenset()
) -> Mapping[str, Any]:
    """An object whose keys are among ``allowed`` and include ``required``; DocumentError
    names ``where`` and the unknown or missing keys."""
    if not isinstance(value, Mapping):
        raise DocumentError(f"{where} must be an object, got {shown(value)}")
    unknown = sorted(set(value) - allowed)
    if unknown:
        raise DocumentError(f"{where} has unknown keys {unknown}; allowed: {sorted(allowed)}")
    missing = sorted(required - set(value))
    if missing:
        raise DocumentError(f"{where} has no {', '.join(map(repr, missing))}")
    return value


def round_header(doc: object, game: str, allowed: frozenset[str]) -> tuple[Mapping[str, Any], str]:
    """A round document (README "Round documents") read as far as its header: an object of
    ``allowed`` keys with a non-empty text ``round_id`` and a ``game`` that is ``game`` (or
    absent: the dispatcher chose the game). Returns the document and its round_id."""
    top = mapping(doc, "the round document", allowed)
    round_id = field(top, "round_id", "the round document")
    if not isinstance(round_id, str) or not round_id:
        raise DocumentError(f"round_id must be non-empty text, got {shown(round_id)}")
    named = top.get("game", game)
    if named != game:
        raise DocumentError(f"game {shown(named)} is not {game!r}")
    return top, round_id


def seat_list(doc: Mapping[str, Any]) -> Sequence[Any]:
    """A round document's ``seats``: a list (its entries are the game's to read)."""
    seats = field(doc, "seats", "the round document")
    if isinstance(seats, str | bytes) or not isinstance(seats, Sequence):
        raise DocumentError(f"seats must be a list of seat objects, got {shown(seats)}")
    return seats


def cents(value: object, where: str) -> int:
    """A non-negative amount in integer cents (never a float, never a bool)."""
    if type(value) is not int or value < 0:
        raise DocumentError(f"{where} must be non-negative integer cents, got {shown(value)}")
    if value > MAX_CENTS:
        raise DocumentError(f"{where} is more than {MAX_CENTS:,} cents, the most an event of "
                            f"the log can carry, got {shown(value)}")
    return value


def cards(value: object, where: str, *, count: int | None = None) -> tuple[Card, ...]:
    """A list of card tokens (``["As", "Jk"]``); names the bad token and its place."""
    if not isinstance(value, Sequence) or isinstance(value, str):
        raise DocumentError(f"{where} must be a list of cards, got {shown(value)}")
    out = []
    for i, token in enumerate(value):
        try:
            out.append(parse_card(token))
        except CardError as exc:
            raise DocumentError(f"{where}[{i}]: {exc}") from None
    if count is not None and len(out) != count:
        raise DocumentError(f"{where} must hold {count} cards, got {len(out)}")
    return tuple(out)


def wagers(value: object, where: str, allowed: frozenset[str]) -> dict[str, int]:
    """A seat's wagers: name -> cents, names among ``allowed``; zero amounts are dropped
    (docs/rules.md 6a.18)."""
    if not isinstance(value, Mapping):
        raise DocumentError(f"{where} must be an object of wager -> cents, got {shown(value)}")
    unknown = sorted(set(value) - allowed)
    if unknown:
        raise DocumentError(f"{where} has unknown wagers {unknown}; allowed: {sorted(allowed)}")
    amounts = {name: cents(amount, f"{where}.{name}") for name, amount in value.items()}
    return {name: amount for name, amount in amounts.items() if amount > 0}


def seat_number(value: object, where: str) -> int:
    if type(value) is not int or value < 1:
        raise DocumentError(f"{where} must be a seat number from 1, got {shown(value)}")
    return value


def round_label(doc: object) -> str:
    """How an error names a document: its round_id, or that it has none."""
    if isinstance(doc, Mapping) and isinstance(doc.get("round_id"), str):
        return str(doc["round_id"])
    return "<round without a round_id>"
