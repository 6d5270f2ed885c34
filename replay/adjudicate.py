"""Judge round documents: find the game, choose the ruleset, let the game module judge.

``judge_document`` is pure. ``judge_lines`` reads a stream of JSON (one document, or JSON
lines of them) and yields, per round, either the result or an error that names the round
and what is wrong, so one bad round never stops the batch (README "Round documents").
"""

from __future__ import annotations

import io
import json
import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import IO, Any

from replay.document import (
    MAX_DEPTH,
    MAX_DOCUMENT_BYTES,
    MAX_INT_DIGITS,
    DocumentError,
    round_label,
)
from replay.errors import ReplayError
from replay.games import find_game
from replay.games.results import ResultObject
from replay.rulebook import Rulebook, shipped_book
from replay.rulesets import Ruleset


def judge_document(doc: Mapping[str, Any], book: Rulebook | None = None, *,
                   casino: str | None = None, as_recorded: bool = False,
                   ruleset: Ruleset | None = None) -> ResultObject:
    """The result object for one round document (README "Round documents"), under the
    ruleset it names, else its game's default, found in ``book`` (default: the shipped
    rulesets alone; replay/rulebook.py), or under ``ruleset`` when given: a ruleset that need
    not be filed nor in force (a what-if, replay/whatif.py). ``casino``: the round's casino,
    whose rulesets and the shipped ones alone it may name. A document given by hand refuses
    a card dealt to two parties (or a tile beyond its copies in the set) as an input error;
    ``as_recorded`` (a round of the log) judges it as recorded, each hand as dealt
    (docs/rules.md 8.1)."""
    book = shipped_book() if book is None else book
    if not isinstance(doc, Mapping):
        raise DocumentError(f"a round document must be a JSON object, got {type(doc).__name__}")
    game_name = doc.get("game")
    if game_name is None:
        raise DocumentError("the document has no 'game'")
    game = find_game(game_name)
    if ruleset is None:
        ruleset_id = doc.get("ruleset")
        ruleset = (book.find(ruleset_id, casino=casino) if ruleset_id is not None
                   else book.default(game.name))
    if ruleset.game != game.name:
        raise DocumentError(f"ruleset {ruleset.id} is for {ruleset.game}, not {game.name}")
    return game.judge_document(doc, ruleset, as_recorded=as_recorded)


@dataclass(frozen=True, slots=True, kw_only=True)
class Judged:
    """One round's outcome in a batch: a result, or the error that names it."""

    line: int
    round: str
    result: ResultObject | None = None
    error: str | None = None


NOT_JSON = "<not JSON>"
NOT_READ = "<not read>"
_SKIP_CHUNK = 1 << 16
_STRUCTURE = re.compile(r'[\[\]{}"\\]')


class Refused(ValueError):
    """Input refused before or while parsing it; the message says where, why and what to do."""

    def __init__(self, message: str, *, offset: int | None = None, needle: str = "") -> None:
        super().__init__(message)
        self.offset = offset
        self.needle = needle


def nesting_refused(text: str, limit: int = MAX_DEPTH) -> int | None:
    """The offset in ``text`` where arrays and objects nest deeper than ``limit``, or None.

    Counts brackets outside JSON strings without parsing, so ``json.loads`` never sees a
    document deep enough to exhaust the interpreter's recursion (100,000 ``[`` in a row).
    """
    if text.count("[") + text.count("{") <= limit:
        return None  # cannot nest deeper than the brackets it holds
    depth = 0
    in_string = False
    escaped_at = -1
    for match in _STRUCTURE.finditer(text):
        at = match.start()
        if at == escaped_at:
            continue
        char = match.group()
        if in_string:
            if char == "\\":
                escaped_at = at + 1
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "[{":
            depth += 1
            if depth > limit:
                return at
        elif char in "]}":
            depth -= 1
    return None


def _parse_int(digits: str) -> int:
    count = len(digits.lstrip("-"))
    if count > MAX_INT_DIGITS:
        raise Refused(f"an integer of {count:,} digits ({digits[:12]}...): integers may have "
                      f"at most {MAX_INT_DIGITS} digits (amounts are integer cents)",
                      needle=digits)
    return int(digits)


def _parse_constant(name: str) -> Any:
    raise Refused(f"{name} is not a JSON number: amounts are integer cents")


_DECODER = json.JSONDecoder(parse_int=_parse_int, parse_constant=_parse_constant)


def loads(text: str) -> Any:
    """``json.loads`` within the limits: :class:`Refused` (with the offset when known) for
    nesting deeper than MAX_DEPTH, integers longer than MAX_INT_DIGITS, NaN and Infinity;
    json.JSONDecodeError for text that is not JSON."""
    deep = nesting_refused(text)
    if deep is not None:
        raise Refused(f"arrays and objects nested more than {MAX_DEPTH} deep: not a round "
                      "document", offset=deep)
    try:
        return _DECODER.decode(text)
    except Refused as exc:
        if exc.offset is None and exc.needle:
            found = text.find(exc.needle)  # the first such integer: json does not say where
            exc.offset = found if found >= 0 else None
        raise


def _position(text: str, offset: int, first_line: int) -> tuple[int, int]:
    line = first_line + text.count("\n", 0, offset)
    column = offset - (text.rfind("\n", 0, offset) + 1) + 1
    return line, column


def _decode(raw: bytes, number: int) -> str:
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise Refused(f"not UTF-8 text: byte 0x{raw[exc.start]:02x} at column {exc.start + 1}; "
                      "round documents are UTF-8 JSON") from None
    return text[1:] if number == 1 and text.startswith("\ufeff") else text


class _Lines:
    """The lines of a binary stream, each read with a bound: a line longer than
    MAX_DOCUMENT_BYTES is skipped to its end (never held whole) and reported."""

    def __init__(self, stream: IO[bytes]) -> None:
        self.stream = stream
        self.number = 0

    def next(self) -> tuple[int, bytes | None] | None:
        """(line number, bytes or None when too long), or None at the end."""
        raw = self.stream.readline(MAX_DOCUMENT_BYTES + 1)
        if not raw:
            return None
        self.number += 1
        if len(raw) > MAX_DOCUMENT_BYTES and not raw.endswith(b"\n"):
            while (rest := self.stream.readline(_SKIP_CHUNK)) and not rest.endswith(b"\n"):
                pass
            return self.number, None
        return self.number, raw


def _too_long() -> Refused:
    return Refused(f"the line is longer than {MAX_DOCUMENT_BYTES >> 20} MiB, the limit for one "
                   "round document; it was skipped (JSON lines hold one document per line)")


def _line_document(number: int, raw: bytes | None) -> tuple[int, Any | Exception] | None:
    if raw is None:
        return number, _too_long()
    try:
        text = _decode(raw, number)
        if not text.strip():
            return None
        return number, loads(text)
    except Refused as exc:
        if exc.offset is not None:
            return number, Refused(f"{exc} (column {exc.offset + 1})")
        return number, exc
    except json.JSONDecodeError as exc:
        return number, exc


def read_documents(stream: IO[bytes]) -> Iterator[tuple[int, Any | Exception]]:
    """The round documents of ``stream``: one JSON document (pretty-printed over many lines)
    or JSON lines of them, each as (line number, document) or (line number, the error).

    Memory stays bounded (LIMITS): the first MAX_DOCUMENT_BYTES are read to tell one
    document from JSON lines; beyond that the input can only be JSON lines, read a line at
    a time. Errors are values, never raised, so one bad round never stops the batch.
    """
    lines = _Lines(stream)
    head: list[tuple[int, bytes | None]] = []
    size = 0
    while size <= MAX_DOCUMENT_BYTES and (item := lines.next()) is not None:
        head.append(item)
        size += MAX_DOCUMENT_BYTES + 1 if item[1] is None else len(item[1])
    if size <= MAX_DOCUMENT_BYTES:
        whole = _one_document(head)
        if whole is not None:
            yield whole
            return
    elif _opens_a_document(head):
        yield head[0][0], Refused(
            f"the input reads as one JSON document (its first line is a lone '{{') longer than "
            f"{MAX_DOCUMENT_BYTES >> 20} MiB, the limit for one round document; nothing was "
            "judged (give JSON lines, one document per line)")
        return
    for number, raw in head:
        if (found := _line_document(number, raw)) is not None:
            yield found
    while (item := lines.next()) is not None:
        if (found := _line_document(*item)) is not None:
            yield found


def _opens_a_document(head: list[tuple[int, bytes | None]]) -> bool:
    for _, raw in head:
        if raw is None:
            return False
        if raw.strip():
            return raw.strip() == b"{"
    return False


def _one_document(head: list[tuple[int, bytes | None]]) -> tuple[int, Any | Exception] | None:
    """The input read as one document, when it is one: text that starts with '{', spans lines
    and parses whole (else None: read it as JSON lines). A document over the limits is
    refused here, with its line and column, when its first line is not a document itself."""
    try:
        texts = [_decode(raw, number) for number, raw in head if raw is not None]
    except Refused:
        return None  # read line by line, so the bad byte is named with its line
    joined = "".join(texts)
    whole = joined.strip()
    if not (whole.startswith("{") and "\n" in whole):
        return None
    try:
        return 1, loads(whole)
    except json.JSONDecodeError:
        return None  # not one pretty-printed document: read it as JSON lines
    except Refused as exc:
        first = next(text for text in texts if text.strip())
        try:
            loads(first)
            return None  # the first line is a document: these are JSON lines
        except (Refused, json.JSONDecodeError):
            pass
        if exc.offset is None:
            return 1, exc
        skipped = len(joined) - len(joined.lstrip())
        line, column = _position(joined, exc.offset + skipped, 1)
        return line, Refused(f"{exc} (column {column})")


def judge_stream(stream: IO[bytes]) -> Iterator[Judged]:
    """Judge every document read from ``stream`` (:func:`read_documents`); errors are reported
    per round, never raised."""
    for number, doc in read_documents(stream):
        if isinstance(doc, Refused):
            yield Judged(line=number, round=NOT_READ, error=str(doc))
            continue
        if isinstance(doc, Exception):
            yield Judged(line=number, round=NOT_JSON, error=f"not valid JSON: {doc}")
            continue
        label = round_label(doc)
        try:
            yield Judged(line=number, round=label, result=judge_document(doc))
        except (ReplayError, ValueError, LookupError) as exc:
            yield Judged(line=number, round=label, error=one_line(str(exc)))


def judge_lines(lines: Iterable[str]) -> Iterator[Judged]:
    """Judge every document in ``lines`` (text already in memory); see :func:`judge_stream`."""
    return judge_stream(io.BytesIO("".join(lines).encode("utf-8", "surrogateescape")))


def one_line(message: str, limit: int = 500) -> str:
    """``message`` fit for one line of standard error: control characters escaped, at most
    ``limit`` characters (an error may quote a value of the document, which can be huge)."""
    shown = message if message.isprintable() else "".join(
        char if char.isprintable() else repr(char)[1:-1] for char in message)
    if len(shown) > limit:
        shown = f"{shown[:limit]}... ({len(shown):,} characters)"
    return shown


def dumps(result: Mapping[str, Any]) -> str:
    """One result as a JSON line, keys in a fixed order so output is byte-stable."""
    return json.dumps(result, separators=(", ", ": "), ensure_ascii=False)
