"""The Log integrity page, as a regulator audits the log, on a real signed log, replayed and
checked: what the manifest says, the checkpoints beside the log, the quarantine with its
reasons, the log-level findings and the verification run on demand, tampered and not."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from dashboard import integrity
from dashboard.context import ROLES, Role, User
from replay.outputs import output_signer, write_signed
from schemas.checkpoint import Checkpoint, Signer
from schemas.keyring import ENV, NOT_PINNED
from tests.dashboard_round_fixtures import (
    FIRST_SEGMENT,
    GAP_ROUNDS,
    QUARANTINE_REASON,
    QUARANTINED_VALUE,
    TOPIC,
    copy_data,
    run_page,
    shown,
    write_pipeline,
)
from tests.keyring_support import pin

PAGE = "dashboard.screens.integrity"


@pytest.fixture(scope="module")
def pipeline(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    root = tmp_path_factory.mktemp("integrity") / "data"
    return root, write_pipeline(root)


@pytest.fixture
def data(pipeline: tuple[Path, dict[str, Any]], tmp_path: Path,
         monkeypatch: pytest.MonkeyPatch) -> Path:
    """A copy of the pipeline's data directory for this test, which may alter it."""
    root = copy_data(pipeline[0], tmp_path / "data")
    monkeypatch.setenv("CATWALK_DATA", str(root))
    monkeypatch.setenv("CATWALK_DASHBOARD_HOME", str(tmp_path / "home"))
    return root


def _regulator() -> User:
    return User(name="rita", role="regulator")


def _frame(at: Any, column: str) -> Any:
    """The first dataframe shown that has ``column``."""
    return next(d.value for d in at.dataframe if column in d.value.columns)


@pytest.mark.parametrize("role", ROLES)
def test_every_role_sees_the_status_of_a_verified_log(
        data: Path, pipeline: tuple[Path, dict[str, Any]], role: Role) -> None:
    at = run_page(PAGE, User(name="u", role=role))
    assert not at.exception
    assert at.title[0].value == "Log integrity"
    # the log's key and the outputs' key were found beside the data: not pinned
    assert at.warning[0].value.startswith("Unverified: key not pinned. ")
    assert all("verified when replay" not in s.value for s in at.success)
    facts = dict(_frame(at, "what").itertuples(index=False))
    written = pipeline[1]["written"]
    assert facts["records verified"] == f"{written:,}"
    assert facts["Merkle root"] == pipeline[1]["root"]
    assert facts["key (fingerprint)"] == pipeline[1]["key_fingerprint"]
    assert facts["rulesets"] == ("caribbean_stud-standard-v1, pai_gow_poker-classic-v1, "
                                 "pai_gow_tiles-pr-v1")
    assert facts["checkpoint"].startswith(f"{written:,} records, signed at ")


def test_checkpoints_are_listed_with_their_segment_and_signature(data: Path) -> None:
    at = run_page(PAGE, _regulator())
    table = _frame(at, "signature")
    rows = {r["file"]: r for r in table.to_dict("records")}
    assert sorted(rows) == ["latest.checkpoint", "segment-000001.checkpoint",
                            "segment-000002.checkpoint"]
    assert rows["segment-000001.checkpoint"]["records"] == FIRST_SEGMENT
    assert rows["segment-000001.checkpoint"]["segment"] == "segment-000001.avro"
    assert rows["segment-000002.checkpoint"]["segment"] == "segment-000002.avro"
    assert all(r["signature"].startswith("good (key catwalk-ingest") for r in rows.values())
    assert all(r["problem"] == "" for r in rows.values())
    assert all(r["bytes"] == (data / "checkpoints" / name).stat().st_size
               for name, r in rows.items())


def test_a_checkpoint_that_does_not_parse_or_is_signed_by_another_key_is_named(
        data: Path) -> None:
    (data / "checkpoints" / "junk.checkpoint").write_text("not a checkpoint\n")
    other = Signer("catwalk-ingest", Ed25519PrivateKey.generate())
    forged = Checkpoint(log_id="f" * 32, size=999, root=bytes(32),
                        signed_at="2026-12-01T00:00:00.000000Z", segment="segment-000009.avro")
    (data / "checkpoints" / "forged.checkpoint").write_text(other.sign(forged))
    at = run_page(PAGE, _regulator())
    rows = {r["file"]: r for r in _frame(at, "signature").to_dict("records")}
    assert rows["junk.checkpoint"]["problem"].startswith("not a signed note")
    assert rows["forged.checkpoint"]["records"] == 999
    assert rows["forged.checkpoint"]["signature"].startswith("BAD: ")
    errors = [e.value for e in at.error]
    assert any("1 checkpoint file(s) do not parse, first `junk.checkpoint`" in e for e in errors)
    assert any("1 checkpoint(s) are not signed by the key the data was verified with, "
               "first `forged.checkpoint`" in e for e in errors)


def test_the_quarantine_is_shown_as_text_with_where_and_why(
        data: Path, pipeline: tuple[Path, dict[str, Any]]) -> None:
    at = run_page(PAGE, _regulator())
    table = _frame(at, "reason")
    assert table.to_dict("records") == [{
        "chain": "log", "file": "segment-000002.jsonl", "line": 1,
        "topic[partition]@offset": f"{TOPIC}[0]@{pipeline[1]['written']}",
        "received": "2026-11-28 18:01:40 UTC", "reason": QUARANTINE_REASON,
        "bytes": len(QUARANTINED_VALUE),
    }]
    assert any(w.startswith("1 message(s) kept out of the log") for w in
               [w.value for w in at.warning])
    # The reason's Markdown and HTML never reach a Markdown element.
    assert not any("<script>" in text or "**not Avro**" in text for text in shown(at))


def test_a_quarantine_line_that_is_not_json_is_listed_as_such(data: Path) -> None:
    path = data / "quarantine" / "segment-000002.jsonl"
    path.write_text(path.read_text() + "{not json\n")
    at = run_page(PAGE, _regulator())
    reasons = list(_frame(at, "reason")["reason"])
    assert reasons == [QUARANTINE_REASON, "not a quarantine line: JSONDecodeError"]


def test_log_level_findings_are_listed(data: Path) -> None:
    at = run_page(PAGE, _regulator())
    kinds = _frame(at, "findings")
    assert kinds.to_dict("records") == [{"kind": "sequence_gap", "findings": 1}]
    findings = _frame(at, "detail")
    assert list(findings["round_id"]) == [GAP_ROUNDS[1]]
    assert list(findings["table_id"]) == ["T02"]


def test_verifying_now_reads_the_log_and_says_it_verified(
        data: Path, pipeline: tuple[Path, dict[str, Any]],
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(ENV, str(pin(data)))  # the regulator's keyring, outside the data
    at = run_page(PAGE, _regulator())
    assert any(c.value.startswith(f"python -m ingest verify --data {data} --key ")
               for c in at.code)
    at.button(key="integrity_verify").click().run()
    assert not at.exception
    assert any(s.value.startswith("Verified at ") for s in at.success)
    written = pipeline[1]["written"]
    assert any(c.value.startswith(f"OK: {written:,} records in 2 segments, Merkle root "
                                  f"{pipeline[1]['root']}") for c in at.code)


def test_verifying_now_with_only_the_key_beside_the_log_does_not_say_verified(
        data: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(ENV, raising=False)
    at = run_page(PAGE, _regulator())
    at.button(key="integrity_verify").click().run()
    assert not at.exception
    assert not any(s.value.startswith("Verified at ") for s in at.success)
    assert any(e.value.startswith("Did not verify at ") for e in at.error)
    assert any(c.value.startswith(f"{NOT_PINNED}: OK: ") for c in at.code)


def test_verifying_a_tampered_log_names_the_problem(data: Path) -> None:
    segment = data / "log" / "segment-000001.avro"
    raw = bytearray(segment.read_bytes())
    raw[-40] ^= 0xFF  # a byte of the last block of records
    segment.write_bytes(bytes(raw))
    at = run_page(PAGE, _regulator())
    at.button(key="integrity_verify").click().run()
    assert not at.exception
    assert any(e.value.startswith("Did not verify at ") for e in at.error)
    assert any(c.value.startswith("FAILED") for c in at.code)


def test_verifying_with_a_pinned_key_that_did_not_sign_fails(data: Path) -> None:
    stranger = Signer("catwalk-ingest", Ed25519PrivateKey.generate()).verifier.vkey
    at = run_page(PAGE, _regulator())
    at.text_input(key="integrity_key").input(stranger)
    at.button(key="integrity_verify").click().run()
    assert any(e.value.startswith("Did not verify at ") and "the key you pinned" in e.value
               for e in at.error)
    assert any(c.value.startswith("FAILED") for c in at.code)


def test_a_pinned_key_that_is_not_a_key_is_refused_with_why(data: Path) -> None:
    at = run_page(PAGE, _regulator())
    at.text_input(key="integrity_key").input("not a key")
    at.button(key="integrity_verify").click().run()
    assert any(c.value.startswith("cannot verify: not a verifier key") for c in at.code)


def test_an_unverified_manifest_is_a_red_error(data: Path) -> None:
    manifest_path = data / integrity.MANIFEST
    manifest = json.loads(manifest_path.read_text())
    manifest.update(verified=False, verification="not verified: segment-000002.avro record 3")
    write_signed(data / "replay", manifest, output_signer(data))  # signed, as replay would
    at = run_page(PAGE, _regulator())
    assert at.error[0].value.startswith("Built from a log that did not verify")
    assert "not verified: segment-000002.avro record 3" in [c.value for c in at.code]
    assert not at.success or all("verified when replay" not in s.value for s in at.success)


@pytest.mark.parametrize(("content", "problem"), [
    (None, "manifest.json is missing"),
    ("[1, 2]", "is not a JSON object"),
    ('{"verified": "yes"}', "signs another manifest than"),
    ("{", "is not JSON"),
])
def test_a_missing_or_bad_manifest_is_never_verified(data: Path, content: str | None,
                                                     problem: str) -> None:
    manifest_path = data / integrity.MANIFEST
    manifest_path.unlink()
    if content is not None:
        manifest_path.write_text(content)
    at = run_page(PAGE, _regulator())
    assert not at.exception
    alerts = [a.value for a in (*at.warning, *at.error) if a.value.startswith("Not trusted (")]
    assert len(alerts) == 1
    assert any(problem in c.value for c in at.code)
    assert all("verified when replay" not in s.value for s in at.success)


def test_no_replay_output_says_what_to_run(tmp_path: Path,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CATWALK_DATA", str(tmp_path / "empty"))
    monkeypatch.setenv("CATWALK_DASHBOARD_HOME", str(tmp_path / "home"))
    at = run_page(PAGE, _regulator())
    assert not at.exception
    texts = shown(at)
    assert any("python -m replay" in t for t in texts)
    assert any(t.startswith("No signed checkpoint in ") for t in texts)


def test_clip_keeps_text_on_one_bounded_line() -> None:
    assert integrity.clip("a\nb\tc") == "a b c"
    assert integrity.clip("x" * 10, 5) == "xxxx\u2026"
