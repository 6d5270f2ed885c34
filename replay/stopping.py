"""Stopping a replay on SIGTERM: the signal becomes an exception raised where the command
runs, so that its helper processes are stopped on the way out (``with start_workers``)
instead of left behind (``python -m replay`` and ``python -m replay whatif``)."""

from __future__ import annotations

import signal


class Terminated(BaseException):
    """SIGTERM reached ``python -m replay``: raised where it runs, so that the helper
    processes are stopped on the way out (``with start_workers``) instead of left behind."""


def _terminated(signum: int, frame: object) -> None:
    signal.signal(signal.SIGTERM, signal.SIG_IGN)  # once: stopping is under way
    raise Terminated
