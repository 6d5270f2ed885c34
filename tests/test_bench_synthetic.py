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


ORDER_CHECKS = ("face_up_set_before_dealer", "winner_paid_before_losers",
                "envy_before_fortune_settled", "concede_before_dealer_exposed",
                "hands_set_out_of_order", "tiles_dealer_set_before_players",
                "tiles_withdrawal_out_of_order")


def _order_rows(tmp_path: Path, fault_rate: float) -> dict[str, int]:
    sys.path.insert(0, str(REPO / "bench"))
    import synthetic_replay

    from checks import runner
    p = synthetic_replay.Params(rounds=20_000, chunk=7_000, fault_rate=fault_rate)
    replay_dir = tmp_path / "replay"
    synthetic_replay.write(p, replay_dir, progress=False)
    checks = {c.id: c for c in runner.load_checks()}
    con = runner.connect(replay_dir)
    try:
        return {cid: con.sql(checks[cid].sql).to_arrow_table().num_rows for cid in ORDER_CHECKS}
    finally:
        con.close()


def test_the_synthetic_timeline_in_each_games_lawful_order_gives_no_order_flag(tmp_path):
    assert _order_rows(tmp_path, 0.0) == dict.fromkeys(ORDER_CHECKS, 0)


def test_the_synthetic_order_faults_give_every_check_of_the_order_of_play_rows(tmp_path):
    rows = _order_rows(tmp_path, 0.01)
    assert all(rows[cid] > 0 for cid in ORDER_CHECKS), rows


def test_the_same_parameters_write_the_same_synthetic_timeline(tmp_path):
    sys.path.insert(0, str(REPO / "bench"))
    import synthetic_replay
    a, b = tmp_path / "a" / "replay", tmp_path / "b" / "replay"
    synthetic_replay.write(synthetic_replay.Params(rounds=5_000, chunk=5_000), a,
                           progress=False)
    synthetic_replay.write(synthetic_replay.Params(rounds=5_000, chunk=5_000), b,
                           progress=False)
    assert pq.read_table(a / "timeline.parquet").equals(pq.read_table(b / "timeline.parquet"))
