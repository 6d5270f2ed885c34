"""Judge round documents: find the game, choose the ruleset, let the game module judge.

``judge_document`` is pure. ``judge_lines`` reads a stream of JSON (one document, or JSON
lines of them) and yields, per round, either the result or an error that names the round
and what is wrong, so one bad round never stops the batch (issue 3, "Bad input").
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from replay.document import DocumentError, round_label
from replay.errors import ReplayError
from replay.games import find_game
from replay.games.results import ResultObject
from replay.rulesets import default_ruleset, load_ruleset


def judge_document(doc: Mapping[str, Any]) -> ResultObject:
    """The result object for one round document (README "Round documents")."""
    if not isinstance(doc, Mapping):
        raise DocumentError(f"a round document must be a JSON object, got {type(doc).__name__}")
    game_name = doc.get("game")
    if game_name is None:
        raise DocumentError("the document has no 'game'")
    game = find_game(game_name)
    ruleset_id = doc.get("ruleset")
    ruleset = load_ruleset(ruleset_id) if ruleset_id is not None else default_ruleset(game.name)
    if ruleset.game != game.name:
        raise DocumentError(f"ruleset {ruleset.id} is for {ruleset.game}, not {game.name}")
    return game.judge_document(doc, ruleset)


@dataclass(frozen=True, slots=True, kw_only=True)
class Judged:
    """One round's outcome in a batch: a result, or the error that names it."""

    line: int
    round: str
    result: ResultObject | None = None
    error: str | None = None


def _documents(lines: Iterable[str]) -> Iterator[tuple[int, Any | Exception]]:
    text = list(lines)
    whole = "".join(text).strip()
    if whole.startswith("{") and "\n" in whole:
        try:
            yield 1, json.loads(whole)
            return
        except json.JSONDecodeError:
            pass  # not one pretty-printed document: read it as JSON lines below
    for number, line in enumerate(text, start=1):
        if not line.strip():
            continue
        try:
            yield number, json.loads(line)
        except json.JSONDecodeError as exc:
            yield number, exc


def judge_lines(lines: Iterable[str]) -> Iterator[Judged]:
    """Judge every document in ``lines``; errors are reported per round, never raised."""
    for number, doc in _documents(lines):
        if isinstance(doc, Exception):
            yield Judged(line=number, round="<not JSON>", error=f"not valid JSON: {doc}")
            continue
        label = round_label(doc)
        try:
            yield Judged(line=number, round=label, result=judge_document(doc))
        except (ReplayError, ValueError, LookupError) as exc:
            yield Judged(line=number, round=label, error=str(exc))


def dumps(result: Mapping[str, Any]) -> str:
    """One result as a JSON line, keys in a fixed order so output is byte-stable."""
    return json.dumps(result, separators=(", ", ": "), ensure_ascii=False)
