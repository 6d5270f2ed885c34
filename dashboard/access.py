"""The access log: every sign-in, page view, round view, export and case action, with who and
when, in one append-only journal, ``HOME/access.jsonl`` (dashboard/journal.py).

Each entry is ``{"user", "action", "target", "detail"}`` plus the journal's ``seq``, ``at``,
``prev`` and ``hash``. ``action`` is one of :data:`dashboard.context.Action`; ``target`` names
what was looked at or changed (a page, a round id, a flag's key, a user); ``detail`` holds the
rest as JSON. The shell fails closed: when :meth:`AccessLog.record` cannot write, it raises
:class:`~dashboard.journal.JournalError` and the page is not shown.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, get_args

from dashboard.context import Action
from dashboard.journal import Journal, JournalError

ACCESS_FILE = "access.jsonl"
ACTIONS: tuple[str, ...] = get_args(Action)
MAX_TEXT = 1000
"""The longest user or target recorded (characters); longer text is refused, not cut."""


def _one_line(what: str, value: object) -> str:
    if not isinstance(value, str):
        raise ValueError(f"the access log's {what} must be text, not {type(value).__name__}")
    if len(value) > MAX_TEXT or any(ord(c) < 32 or ord(c) == 127 for c in value):
        raise ValueError(f"the access log's {what} must be one line of at most {MAX_TEXT} "
                         f"printable characters, not {value[:80]!r}")
    return value


class AccessLog:
    """Who did what, when: ``HOME/access.jsonl``."""

    def __init__(self, home: Path) -> None:
        self.home = Path(home)
        self.journal = Journal(self.home / ACCESS_FILE)

    def record(self, user: str, action: Action, target: str = "", **detail: Any
               ) -> dict[str, Any]:
        """Append one entry and return it as written. Raises ValueError for an unknown action
        or a detail that is not JSON, and :class:`JournalError` when the log cannot be written
        (it does not verify, the disk is full ...)."""
        if action not in ACTIONS:
            raise ValueError(f"{action!r} is not an access-log action: one of "
                             f"{', '.join(ACTIONS)}")
        entry = {"user": _one_line("user", user), "action": action,
                 "target": _one_line("target", target), "detail": detail}
        return self.journal.append(entry)

    def entries(self, *, user: str | None = None, action: str | None = None,
                limit: int | None = None) -> list[dict[str, Any]]:
        """The entries, newest first, of one user and/or one action when given, at most
        ``limit``. Raises :class:`JournalError` naming the file and line when the log does not
        verify (a page then says so instead of showing a partial log)."""
        def wanted(entry: dict[str, Any]) -> bool:
            return ((user is None or entry.get("user") == user)
                    and (action is None or entry.get("action") == action))

        return self.journal.entries(newest_first=True, where=wanted, limit=limit)

    def verify(self) -> str | None:
        """None when the log is whole; else its first problem, ``"FILE line N: ..."``."""
        return self.journal.verify()


__all__ = ["ACTIONS", "AccessLog", "JournalError"]
