"""The full verification the live loop runs from time to time beside its resumed ones
(schemas/log_resume.py), in a child process so that it never delays a live pass and uses
the other core: what a fingerprint of a segment file cannot see (a bit flipped on disk, a
tamperer able to set a file's change time back) is caught within one period.

``python -m schemas.log_recheck --data DATA --vkey VKEY`` verifies every chain of DATA
exactly as ``python -m ingest verify`` does (``schemas.log_verify.verify_data``, the
checkpoints beside the log included) against the verifier key VKEY (``name+hash+key``: the
key the live loop verifies with, chosen by ``schemas.keyring.log_key``), at a lower
priority (nice 10), and prints the verdict as one JSON line on standard output: ``ok``,
``lone`` (the lone ingest's chain alone), ``records``, ``root`` (hex,
``DataVerdict.root``), ``problem`` and ``line``. Exit 0 when it gave a verdict (whatever
it is), 2 when it could not (the reason on standard error).

The log is append-only, so the child verifies the prefix it lists while ingest appends
(checkpoints read first, then the segments, as ``verify_data`` does)."""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from schemas.checkpoint import CheckpointError, Verifier


@dataclass(frozen=True, slots=True, kw_only=True)
class Rechecked:
    """What a full verification in the background found."""

    finished: bool
    """Whether the child gave a verdict (False: it failed or was stopped; ``problem`` says
    how, and nothing it did can be trusted)."""
    ok: bool
    lone: bool
    records: int
    root: str
    problem: str | None
    line: str
    seconds: float


class Recheck:
    """One child process at a time verifying ``data_dir`` whole (see the module docstring).
    Not thread-safe: one caller starts and polls it."""

    command: tuple[str, ...] = (sys.executable, "-m", "schemas.log_recheck")
    """What runs the child (``--data`` and ``--vkey`` follow)."""

    def __init__(self, data_dir: Path) -> None:
        self.data_dir = data_dir
        self._child: subprocess.Popen[bytes] | None = None
        self._out: IO[bytes] | None = None
        self._err: IO[bytes] | None = None
        self._started = 0.0

    @property
    def running(self) -> bool:
        return self._child is not None

    def start(self, key: Verifier) -> None:
        """Start verifying the log whole against ``key`` (a no-op while one runs)."""
        if self._child is not None:
            return
        # Temporary files rather than pipes: a child that writes more than a pipe holds
        # never waits on a parent that reads only once it ended.
        self._out = tempfile.TemporaryFile()  # noqa: SIM115 (closed by _close_files)
        self._err = tempfile.TemporaryFile()  # noqa: SIM115 (closed by _close_files)
        self._started = time.monotonic()
        try:
            self._child = subprocess.Popen(
                [*self.command, "--data", str(self.data_dir), "--vkey", key.vkey],
                stdin=subprocess.DEVNULL, stdout=self._out, stderr=self._err)
        except OSError:
            self._close_files()
            raise

    def poll(self) -> Rechecked | None:
        """The verdict once the child ended (then it can be started again), else None."""
        child = self._child
        if child is None or child.poll() is None:
            return None
        return self._collect(child)

    def wait(self, timeout: float | None = None) -> Rechecked | None:
        """Wait for the child (at most ``timeout`` seconds): its verdict, or None when none
        runs or it is still running."""
        child = self._child
        if child is None:
            return None
        try:
            child.wait(timeout)
        except subprocess.TimeoutExpired:
            return None
        return self._collect(child)

    def stop(self) -> None:
        """Stop a child still running (its verdict is dropped)."""
        child = self._child
        if child is None:
            return
        if child.poll() is None:
            child.terminate()
            try:
                child.wait(5)
            except subprocess.TimeoutExpired:
                child.kill()
                child.wait()
        self._child = None
        self._close_files()

    def _collect(self, child: subprocess.Popen[bytes]) -> Rechecked:
        seconds = time.monotonic() - self._started
        assert self._out is not None and self._err is not None
        self._out.seek(0)
        self._err.seek(0)
        out = self._out.read().decode("utf-8", "replace")
        err = self._err.read().decode("utf-8", "replace")
        self._child = None
        self._close_files()
        try:
            got = json.loads(out) if child.returncode == 0 else None
            if got is not None:
                return Rechecked(finished=True, ok=bool(got["ok"]), lone=bool(got["lone"]),
                                 records=int(got["records"]), root=str(got["root"]),
                                 problem=got["problem"], line=str(got["line"]),
                                 seconds=seconds)
        except (ValueError, KeyError, TypeError):
            pass
        last = next((line for line in reversed((err + out).splitlines()) if line.strip()),
                    "no message")
        why = f"python -m schemas.log_recheck ended with exit {child.returncode}: {last[:300]}"
        return Rechecked(finished=False, ok=False, lone=False, records=0, root="", problem=why,
                         line=why, seconds=seconds)

    def _close_files(self) -> None:
        for fo in (self._out, self._err):
            if fo is not None:
                fo.close()
        self._out = self._err = None


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        prog="python -m schemas.log_recheck",
        description="Verify every chain of DATA's log whole (as python -m ingest verify) at a "
        "lower priority and print the verdict as one JSON line; run by python -m checks "
        "--follow every --full-every seconds.")
    p.add_argument("--data", type=Path, required=True, help="the data directory holding log/")
    p.add_argument("--vkey", required=True,
                   help="the verifier key the caller verifies with, name+hash+key (chosen by "
                   "schemas.keyring.log_key: --key, the keyring, else keys/signing.pub)")
    args = p.parse_args(argv)
    from schemas.log_verify import verify_data

    with contextlib.suppress(OSError):  # the verification is the same at any priority
        os.nice(10)
    try:
        key = Verifier.from_vkey(args.vkey)
    except CheckpointError as exc:
        print(f"log_recheck: --vkey: {exc}", file=sys.stderr)
        return 2
    try:
        verdict = verify_data(args.data, key)
    except OSError as exc:
        print(f"log_recheck: cannot read {args.data}: {exc}", file=sys.stderr)
        return 2
    print(json.dumps({"ok": verdict.ok, "lone": verdict.lone, "records": verdict.records,
                      "root": verdict.root, "problem": verdict.problem,
                      "line": verdict.line()}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
