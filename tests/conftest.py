"""Shared fixtures: the real local Kafka broker for the integration tests.

The broker is the project's own (deploy/kafka/kafka.sh, Apache Kafka from Maven Central on
127.0.0.1). With KAFKA_BOOTSTRAP set, that cluster is used and nothing is started. A broker
this session starts is stopped at the end; one that was already running is left alone.
Nothing here skips: a broker that cannot be started fails the tests that need it.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
KAFKA_SH = REPO / "deploy" / "kafka" / "kafka.sh"


@pytest.fixture(autouse=True)
def _main_module_kept() -> Iterator[None]:
    """Streamlit's AppTest runs a script as ``__main__`` and leaves ``sys.modules["__main__"]``
    naming its temporary file, which is gone afterwards; a later test that starts a process
    with ``spawn`` (replay --workers 2) would then see its helper fail to start. Each test
    gets back the ``__main__`` it started with."""
    main = sys.modules.get("__main__")
    yield
    if main is not None:
        sys.modules["__main__"] = main


def _kafka(*args: str, timeout: float = 900) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["bash", str(KAFKA_SH), *args], capture_output=True, text=True,
                          timeout=timeout, cwd=REPO)


@pytest.fixture(scope="session")
def kafka_bootstrap() -> Iterator[str]:
    """host:port of a real Apache Kafka broker."""
    env = os.environ.get("KAFKA_BOOTSTRAP")
    if env:
        yield env
        return
    status = _kafka("status", timeout=60)
    if status.returncode == 0 and status.stdout.strip():
        yield status.stdout.strip().splitlines()[-1]
        return
    up = _kafka("up")
    if up.returncode != 0:
        pytest.fail(f"could not start the local Kafka broker (deploy/kafka/kafka.sh up):\n"
                    f"{up.stdout}\n{up.stderr}", pytrace=False)
    try:
        yield up.stdout.strip().splitlines()[-1]
    finally:
        _kafka("down", timeout=120)


def run_cli(*args: str, env: dict[str, str] | None = None,
            timeout: float = 300) -> subprocess.CompletedProcess[str]:
    """Run ``python -m <args>`` the way a user would, from the repository root."""
    full_env = {**os.environ, **(env or {})}
    return subprocess.run([sys.executable, "-m", *args], capture_output=True, text=True,
                          timeout=timeout, cwd=REPO, env=full_env)
