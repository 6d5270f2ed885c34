"""Nothing after the log is trusted unless it is signed and checked (replay/outputs.py).

A real log is replayed with a pinned key (``--key``) and checked; then each doctored-output
drill an insider without the outputs' key could try is played against every reader: the
checks (``python -m checks``), ``python -m replay round``, the dispute report and a
dashboard page. Each must refuse (exit 1 with the reason; the page: a red banner and no
data). The expected states are written here from the attack, not computed by the code
under test.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest

from replay.outputs import (
    MANIFEST,
    PUBLIC_KEY,
    SIGNATURE,
    file_digest,
    output_signer,
    sign_note,
    trust,
)
from schemas.keyring import ENV
from tests.conftest import run_cli
from tests.dashboard_pages_fixtures import app_test, open_page, write_users
from tests.test_replay_workers import _interleaved, _shift, _write


def _replayed(root: Path) -> Path:
    from checks.runner import run_checks
    from replay.__main__ import main as replay_main

    log = _write(root, _interleaved(_shift(tables=2, rounds=2)))
    data = log.parent
    assert replay_main(["--data", str(data), "--key", str(data / "keys" / "signing.pub")]) == 0
    run_checks(data / "replay", data / "checks")
    return data


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _replayed(tmp_path_factory.mktemp("outputs"))


@pytest.fixture
def data(built: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A copy of the replayed data (its replay directory a real directory), with a keyring
    outside it pinning the log's and the outputs' keys."""
    copy = tmp_path / "data"
    shutil.copytree(built, copy, symlinks=False, ignore=shutil.ignore_patterns(".replay*"))
    shutil.copytree((built / "replay").resolve(), copy / "replay", dirs_exist_ok=True)
    ring = tmp_path / "keyring"
    ring.write_text(f"{(copy / PUBLIC_KEY).read_text().strip()} role=outputs\n"
                    f"{(copy / 'keys' / 'signing.pub').read_text().strip()} role=log\n")
    monkeypatch.setenv(ENV, str(ring))
    return copy


def _a_round(data: Path) -> tuple[str, str, str]:
    row = pq.read_table(data / "replay" / "rounds.parquet").slice(0, 1).to_pylist()[0]
    return row["round_id"], row["casino"], row["table_id"]


def _rewrite_manifest(data: Path, change) -> None:
    """Edit the manifest as an insider without the key would: its hashes recomputed, the
    signature left (it no longer matches)."""
    path = data / "replay" / MANIFEST
    manifest = json.loads(path.read_text())
    change(manifest)
    path.write_text(json.dumps(manifest, sort_keys=True, indent=2) + "\n")


def _edit_wagers(data: Path) -> None:
    path = data / "replay" / "wagers.parquet"
    table = pq.read_table(path)
    index = table.schema.get_field_index("recorded_net_cents")
    table = table.set_column(index, table.schema.field(index),
                             pc.cast(table["expected_net_cents"], pa.int64()))
    pq.write_table(table, path)
    digest, size = file_digest(path)

    def change(manifest):
        manifest["files"]["wagers.parquet"] = digest
        manifest["sizes"]["wagers.parquet"] = size
    _rewrite_manifest(data, change)


def _delete_listed(data: Path) -> None:
    (data / "replay" / "envy.parquet").unlink()


def _add_unlisted(data: Path) -> None:
    shutil.copy(data / "replay" / "wagers.parquet", data / "replay" / "wagers2.parquet")


def _resign_with_another_key(data: Path) -> None:
    """Replace keys/outputs.pub (and the key) and re-sign the edited manifest: it verifies
    with the key beside the data, not with the keyring's."""
    _edit_wagers(data)
    (data / "keys" / "outputs.key").unlink()
    (data / PUBLIC_KEY).unlink()
    other = output_signer(data, who="insider")
    raw = (data / "replay" / MANIFEST).read_bytes()
    from replay.outputs import REPLAY_FORMAT, note_body

    (data / "replay" / SIGNATURE).write_text(sign_note(other, note_body(REPLAY_FORMAT, raw)))


def _old_format(data: Path) -> None:
    _rewrite_manifest(data, lambda m: m.update(format="catwalk-replay-manifest/1"))
    (data / "replay" / SIGNATURE).unlink()


def _problems_as_one_text(data: Path) -> None:
    """Outputs as an older replay wrote them, signed with the outputs' own key: the manifest
    /2 and rounds.problems one text, the problems joined with "; " (which a reader of the
    list would take letter by letter)."""
    path = data / "replay" / "rounds.parquet"
    table = pq.read_table(path)
    index = table.schema.get_field_index("problems")
    joined = pa.array(["; ".join(p) or None for p in table["problems"].to_pylist()],
                      pa.string())
    pq.write_table(table.set_column(index, pa.field("problems", pa.string()), joined), path)
    digest, size = file_digest(path)

    def change(manifest):
        manifest["files"]["rounds.parquet"] = digest
        manifest["sizes"]["rounds.parquet"] = size
        manifest["format"] = "catwalk-replay-manifest/2"
    _rewrite_manifest(data, change)
    from replay.outputs import note_body

    raw = (data / "replay" / MANIFEST).read_bytes()
    signer = output_signer(data, who="replay")
    (data / "replay" / SIGNATURE).write_text(
        sign_note(signer, note_body("catwalk-replay-manifest/2", raw)))


DRILLS = {
    "wagers edited, hash recomputed": (_edit_wagers, "tampered",
                                       "signs another manifest than"),
    "a listed file deleted": (_delete_listed, "tampered",
                              "envy.parquet is listed in the manifest but missing"),
    "an unlisted file added": (_add_unlisted, "tampered",
                               "holds file(s) the manifest does not list: wagers2.parquet"),
    "outputs.pub replaced and re-signed": (_resign_with_another_key, "tampered",
                                           "not signed by a trusted outputs key"),
    "a manifest /1": (_old_format, "unsigned", "unsigned: written before outputs were signed"),
    "a signed manifest /2, problems one text": (
        _problems_as_one_text, "outdated", "written while rounds.problems was one text"),
}


def test_the_untouched_outputs_verify_with_the_pinned_keys(data: Path) -> None:
    found = trust(data)
    assert found.state == "verified", found.reasons
    assert found.files == {f"{n}.parquet" for n in (
        "rounds", "hands", "wagers", "envy", "bankers", "jackpots", "timeline", "findings")}
    manifest = found.manifest
    assert manifest is not None and manifest["format"] == "catwalk-replay-manifest/3"
    assert manifest["key_pinned"] is True
    (tree,) = manifest["trees"]
    assert tree["size"] == manifest["log"]["records"] and len(tree["root"]) == 64
    assert run_cli("checks", "--data", str(data)).returncode == 0


@pytest.mark.parametrize("drill", list(DRILLS))
def test_a_doctored_output_is_refused_by_the_checks(data: Path, drill: str) -> None:
    doctor, state, why = DRILLS[drill]
    doctor(data)
    found = trust(data)
    assert found.state == state and not found.usable and found.files == frozenset()
    assert any(why in r for r in found.reasons), found.reasons
    before = (data / "checks" / "flags.parquet").read_bytes()
    proc = run_cli("checks", "--data", str(data))
    assert proc.returncode == 1, proc.stdout
    assert f"REFUSED: the replay outputs in {data / 'replay'} cannot be trusted ({state})" \
        in proc.stderr and why in proc.stderr
    assert (data / "checks" / "flags.parquet").read_bytes() == before


@pytest.mark.parametrize("drill", list(DRILLS))
def test_a_doctored_output_is_refused_by_replay_round_and_the_dispute_report(
        data: Path, drill: str) -> None:
    from replay.dispute import UntrustedOutputs, round_report

    doctor, state, why = DRILLS[drill]
    round_id, casino, table = _a_round(data)
    doctor(data)
    proc = run_cli("replay", "round", round_id, "--casino", casino, "--table", table,
                   "--data", str(data))
    assert proc.returncode == 1 and f"cannot be trusted ({state})" in proc.stderr
    assert why in proc.stderr and proc.stdout == ""
    with pytest.raises(UntrustedOutputs, match=rf"\({state}\)"):
        round_report(data, round_id, casino=casino, table_id=table)


@pytest.mark.parametrize("drill", list(DRILLS))
def test_a_doctored_output_is_refused_by_a_dashboard_page(
        data: Path, drill: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    doctor, state, why = DRILLS[drill]
    doctor(data)
    home = tmp_path / "home"
    write_users(home, tmp_path)
    at = open_page(app_test(data, home, monkeypatch, role="analyst").run(), "flags").run()
    assert not at.exception
    (banner,) = [e for e in at.error if e.value.startswith("**Not shown")]
    assert f"({state})" in banner.value and why in banner.value
    assert any("Nothing is shown here" in e.value for e in at.error)
    assert not at.dataframe and not at.metric


def test_an_edited_flags_file_is_not_shown(data: Path, tmp_path: Path,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    from replay.outputs import checks_trust

    assert checks_trust(data).state == "verified"
    path = data / "checks" / "flags.parquet"
    flags = pq.read_table(path)
    pq.write_table(flags.slice(0, 0).replace_schema_metadata(flags.schema.metadata), path)
    found = checks_trust(data)
    assert found.state == "tampered"
    assert any("flags.parquet is not the file the manifest lists" in r for r in found.reasons)
    home = tmp_path / "home"
    write_users(home, tmp_path)
    at = open_page(app_test(data, home, monkeypatch, role="analyst").run(), "flags").run()
    assert any(e.value.startswith("**Not shown") and "flags.parquet" in e.value
               for e in at.error)
    assert not at.dataframe


def test_without_a_keyring_the_outputs_are_key_not_pinned(data: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(ENV)
    found = trust(data)
    assert found.state == "key-not-pinned" and found.usable
    assert found.words.startswith("unverified: key not pinned: ")


def test_a_refusal_marks_the_outputs_and_keeps_its_first_time(data: Path) -> None:
    from replay.refusal import mark_refused, refused_mark

    mark_refused(data / "replay", "the log does not verify: first")
    first = json.loads(refused_mark(data / "replay").read_text())["refused_at"]
    told = json.loads(refused_mark(data / "replay").read_text())
    told["refused_at"] = "2099-01-01T00:00:00+00:00"  # a later refusal's time
    refused_mark(data / "replay").write_text(json.dumps(told))
    mark_refused(data / "replay", "the log does not verify: second")
    found = trust(data)
    assert found.state == "refused" and found.usable and found.refused_at == first
    assert f"(first refused at {first})" in found.words
    assert "second" in found.words


def test_the_banner_turns_red_on_the_next_run_of_an_open_flags_page(
        data: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The page was open and green; the live loop refuses the log; the next run (a rerun,
    or the live fragment's rerun of the page) shows the refusal and its first time, and the
    Log integrity page agrees with it (no green box under the red banner)."""
    from replay.refusal import mark_refused, refused_mark

    home = tmp_path / "home"
    write_users(home, tmp_path)
    at = open_page(app_test(data, home, monkeypatch, role="analyst").run(), "flags").run()
    assert any(c.value.startswith("Built from a verified log") for c in at.caption)
    assert not at.error
    mark_refused(data / "replay", "the log does not verify: segment-000001.avro altered")
    first = json.loads(refused_mark(data / "replay").read_text())["refused_at"]
    at.run()
    (banner,) = [e for e in at.error if "did not verify" in e.value]
    assert f"First refused at `{first}`" in banner.value
    assert not any(c.value.startswith("Built from a verified log") for c in at.caption)
    at = open_page(at, "integrity").run()
    assert not [s for s in at.success if "verified when replay read it" in s.value]
    assert any("a later replay refused" in e.value for e in at.error)


def test_verify_now_takes_a_kept_checkpoint_and_witness_keys_and_is_recorded(
        data: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    from dashboard.access import AccessLog
    from dashboard.integrity import read_manifest, verify_now
    from schemas.cosignature import Cosigner

    kept = (data / "checkpoints" / "latest.checkpoint").read_text()
    manifest = read_manifest(data)
    assert verify_now(data, "", manifest, kept=kept).ok
    garbage = verify_now(data, "", manifest, kept="not a checkpoint\n")
    assert not garbage.ok
    witness = Cosigner("witness.example/w1", Ed25519PrivateKey.generate())
    other = Cosigner("witness.example/w2", Ed25519PrivateKey.generate())
    cosigned = witness.cosign(kept, 1_764_633_600)
    checked = verify_now(data, "", manifest, kept=cosigned, witnesses=[witness.key.vkey])
    assert checked.ok and checked.witness.startswith("cosigned by 1 witness key(s)")
    uncosigned = verify_now(data, "", manifest, kept=kept, witnesses=[witness.key.vkey])
    assert not uncosigned.ok and uncosigned.witness.startswith("not cosigned")
    stranger = verify_now(data, "", manifest, kept=cosigned, witnesses=[other.key.vkey])
    assert not stranger.ok
    alone = verify_now(data, "", manifest, witnesses=[witness.key.vkey])
    assert not alone.ok and "needs the cosigned checkpoint" in alone.line
    home = tmp_path / "home"
    write_users(home, tmp_path)
    at = open_page(app_test(data, home, monkeypatch, role="regulator").run(), "integrity").run()
    at.text_area(key="integrity_kept").set_value(cosigned)
    at.text_area(key="integrity_witness").set_value(witness.key.vkey)
    at.button(key="integrity_verify").click().run()
    assert not at.exception
    (entry,) = AccessLog(home).entries(action="log_verified")
    assert entry["detail"]["kept"] is True and entry["target"] == str(data)
    assert entry["detail"]["witness"] == checked.witness


def test_a_keyring_without_an_outputs_key_pins_none(data: Path, tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """A keyring of log keys only: the outputs verify with the key beside the data, said not
    pinned; one whose outputs key did not sign them refuses them."""
    ring = tmp_path / "log-only"
    ring.write_text(f"{(data / 'keys' / 'signing.pub').read_text().strip()} role=log\n")
    monkeypatch.setenv(ENV, str(ring))
    found = trust(data)
    assert found.state == "key-not-pinned" and found.usable
    assert any("holding no outputs key" in r for r in found.reasons)
    stranger = output_signer(tmp_path / "elsewhere", who="test").verifier.vkey
    ring.write_text(f"{stranger} role=outputs\n")
    found = trust(data)
    assert found.state == "tampered" and "not signed by a trusted outputs key" in found.reasons[0]
