"""Keeping Python's cyclic garbage collector off work that makes no reference cycles.

Replay and ingest allocate many short-lived objects (events, rows, messages) while holding a
large heap (rounds, the event index); every collection those allocations trigger walks the
whole heap again. Reference counting frees them at once, so the collector is paused while
such work runs (about a sixth of a replay's time, a quarter of ingest's:
bench/replay_floor.py, bench/ingest_vs_bare.py). No pyarrow here: ingest imports this.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def collector_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector for the block; it resumes as it was."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()
