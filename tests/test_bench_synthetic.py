"""The checks benchmark's synthetic replay outputs (bench/synthetic_replay.py) keep replay's
own schemas, file for file, so the benchmark measures the checks on the files replay writes
(a column replay gains must be written there too), and the checks run over them."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pyarrow.parquet as pq

from replay.run import TABLES

REPO = Path(__file__).resolve().parent.parent


def test_synthetic_outputs_have_replays_schemas_and_the_checks_run_on_them(tmp_path):
    out = tmp_path / "synthetic"
    made = subprocess.run([sys.executable, "bench/synthetic_replay.py", "--rounds", "3000",
                           "--out", str(out)], cwd=REPO, capture_output=True, text=True,
                          timeout=300)
    assert made.returncode == 0, made.stderr
    for name, schema in TABLES.items():
        written = pq.read_schema(out / "replay" / f"{name}.parquet")
        assert written.names == schema.names, name
        assert [f.type for f in written] == [f.type for f in schema], name
    checked = subprocess.run([sys.executable, "-m", "checks", "--data", str(out)], cwd=REPO,
                             capture_output=True, text=True, timeout=300)
    assert checked.returncode == 0, checked.stderr
    assert " flags from " in checked.stdout
