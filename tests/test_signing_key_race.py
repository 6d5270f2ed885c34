"""Ingest workers started at the same moment on one data directory each find the signing key
whole (ingest/keys.py): the key is written under a temporary name and linked into place, so
no process ever reads a half-written key file, and all of them sign with the one key."""

from __future__ import annotations

import multiprocessing
from pathlib import Path

from ingest.keys import load_signer


def _load(data: str, start: multiprocessing.synchronize.Event, out: multiprocessing.Queue
          ) -> None:
    start.wait()
    try:
        out.put(("ok", load_signer(Path(data)).verifier.vkey))
    except Exception as exc:  # the test reports what went wrong in the child
        out.put(("error", f"{type(exc).__name__}: {exc}"))


def test_workers_creating_the_key_together_all_get_the_same_whole_key(tmp_path: Path) -> None:
    context = multiprocessing.get_context("fork")
    for attempt in range(5):
        data = tmp_path / f"data{attempt}"
        start, out = context.Event(), context.Queue()
        children = [context.Process(target=_load, args=(str(data), start, out))
                    for _ in range(8)]
        for child in children:
            child.start()
        start.set()
        results = [out.get(timeout=60) for _ in children]
        for child in children:
            child.join(timeout=60)
        assert [kind for kind, _ in results] == ["ok"] * 8, results
        assert len({vkey for _, vkey in results}) == 1
        assert [p.name for p in sorted((data / "keys").iterdir())] == [
            "signing.key", "signing.pub"]
        assert load_signer(data, create=False).verifier.vkey == results[0][1]
