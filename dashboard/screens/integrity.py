"""The Log integrity page: whether the data shown was built from a log that verified, the
signed checkpoints beside the log, the quarantine with its reasons, the log-level findings
of replay, and the verification run again on demand (docs/guide-regulator.md;
docs/log-integrity.md).

What a regulator reads first: the verdict of the verification replay recorded in its
manifest, the Merkle root and the checkpoint it ties the data to, and the command that lets
them check the same thing with the key they pinned, without trusting this dashboard.
"""

from __future__ import annotations

from dataclasses import asdict
from pathlib import Path
from typing import Any

import duckdb
import pandas as pd
import streamlit as st

from dashboard import data, integrity
from dashboard.context import PageContext, Role
from dashboard.views import code, literal

TITLE = "Log integrity"
URL_PATH = "integrity"
ICON = ":material/verified:"
ROLES: frozenset[Role] | None = None

FINDINGS = "replay/findings.parquet"
FINDINGS_ROWS = 1_000
# Session state: the last verification run from this page, per data directory.
VERIFIED_KEY = "integrity_verification"


@st.cache_data(max_entries=8, show_spinner=False)
def _checkpoints(root: str, stamp: tuple[Any, ...]) -> list[integrity.CheckpointFile]:
    """Every checkpoint file, signatures checked with the key the manifest names (the
    manifest is part of ``stamp``)."""
    manifest_key = integrity.manifest_key(integrity.read_manifest(Path(root)))
    return integrity.checkpoint_files(Path(root), manifest_key)


@st.cache_data(max_entries=8, show_spinner=False)
def _quarantine(root: str, stamp: tuple[Any, ...]) -> integrity.Quarantine:
    return integrity.quarantine(Path(root))


@st.cache_data(max_entries=8, show_spinner=False)
def _findings(_con: duckdb.DuckDBPyConnection, path: str,
              stamp: tuple[Any, ...]) -> tuple[pd.DataFrame, pd.DataFrame, int]:
    """Findings by kind, the first FINDINGS_ROWS findings, and how many there are."""
    with _con.cursor() as cur:
        kinds = cur.execute(
            "SELECT kind, count(*)::BIGINT AS findings FROM read_parquet(?) "
            "GROUP BY kind ORDER BY findings DESC, kind", [path]).df()
    with _con.cursor() as cur:
        rows = cur.execute(
            "SELECT kind, casino, table_id, round_id, \"where\", detail FROM read_parquet(?) "
            "ORDER BY kind, casino NULLS FIRST, table_id NULLS FIRST, round_id NULLS FIRST "
            f"LIMIT {FINDINGS_ROWS}", [path]).df()
    total = int(kinds["findings"].sum()) if not kinds.empty else 0
    return kinds, rows, total


def render(ctx: PageContext) -> None:
    """Draw the page: status of the data, checkpoints, quarantine, findings, verify."""
    st.title(TITLE)
    manifest = integrity.read_manifest(ctx.root)
    _status(ctx.root, manifest)
    stamp = integrity.files_stamp(ctx.root)
    _checkpoint_section(ctx.root, manifest, stamp)
    _quarantine_section(ctx.root, stamp)
    _findings_section(ctx)
    _verify_section(ctx, manifest)


def _status(root: Path, manifest: integrity.Manifest) -> None:
    """The verdict on the data shown, in the banner's words and colour (the same reader,
    dashboard/data.py ``provenance``): green only when everything verified with pinned keys."""
    st.header("The data shown")
    known = data.provenance(root)
    since = f" First refused at {literal(known.refused_at)}." if known.refused_at else ""
    if known.state == "verified" and known.shown:
        st.success("Built from a log that verified when replay read it, with a pinned key; "
                   "the outputs' signed manifests and every file's SHA-256 check.")
    elif known.state == "key-not-pinned" and known.shown:
        st.warning("Unverified: key not pinned. The log and the outputs verify, but only with "
                   "keys found beside the data, which whoever can write it can replace. Pin "
                   "your keys (CATWALK_TRUSTED_KEYS) or verify below with the key you pinned.")
    elif known.state in ("unverified-log", "refused") and known.shown:
        st.error("Built from a log that did not verify, or that a later replay refused: the "
                 "rounds and flags may rest on records that were altered, lost or added."
                 f"{since} Find the first bad record with the command below, and replay "
                 "again once the log verifies.")
    elif manifest.state == "unknown" and not known.reasons:
        st.warning(f"Provenance unknown: {code(root / integrity.MANIFEST)} "
                   f"{literal(manifest.problem or '')}. Run `python -m replay` to record it.")
    else:
        st.error(f"Not trusted ({literal(known.state)}): the data is not shown.{since} "
                 "Run `python -m replay` and `python -m checks` again from a log that "
                 "verifies.")
    if known.reasons:
        st.markdown("**What was checked and did not hold**")
        st.code("\n".join(known.reasons), language=None, wrap_lines=True)
    if manifest.line:
        st.markdown("**Replay's verification**")
        st.code(manifest.line, language=None, wrap_lines=True)
    rows = [
        ("records verified", f"{manifest.records:,}" if manifest.records is not None else ""),
        ("Merkle root", manifest.root or ""),
        ("key (fingerprint)", manifest.key_fingerprint or ""),
        ("rulesets", ", ".join(manifest.rulesets or ())),
        ("code", manifest.code_version or ""),
    ]
    if manifest.checkpoint:
        summaries = integrity.checkpoint_summaries(manifest.checkpoint)
        for chain, summary in summaries:
            what = "checkpoint" if not chain else f"checkpoint of chain {chain}"
            if summary is None:
                rows.append((what, "does not parse"))
                continue
            rows.append((what, f"{summary['records']:,} records, signed at "
                         f"{summary['signed_at']}, segment {summary['segment']}, root "
                         f"{summary['root']}, log {summary['log_id']}"))
        lone = summaries[0][1] if len(summaries) == 1 else None
        if lone is not None and manifest.records is not None \
                and lone["records"] != manifest.records:
            st.warning(f"The checkpoint the manifest names covers {lone['records']:,} "
                       f"records, the verification {manifest.records:,}.")
    elif manifest.state in ("verified", "unverified"):
        rows.append(("checkpoint", "none named"))
    if manifest.state in ("verified", "unverified"):
        st.dataframe(pd.DataFrame(rows, columns=["what", "value"]), hide_index=True,
                     width="stretch")
        if manifest.checkpoint:
            with st.expander("The signed checkpoint the data is tied to"):
                st.code(manifest.checkpoint, language=None)


def _checkpoint_section(root: Path, manifest: integrity.Manifest,
                        stamp: tuple[Any, ...]) -> None:
    st.header("Checkpoints beside the log")
    files = _checkpoints(str(root), stamp)
    if not files:
        st.info(f"No signed checkpoint in {code(root / 'checkpoints')}: ingest signs one per "
                "segment. Without one nothing ties the log to what was signed.")
        return
    key = integrity.manifest_key(manifest)
    st.caption(
        f"{len(files):,} files. Each is read with `schemas.checkpoint.parse`; "
        + (f"signatures checked with the key the data was verified with ({code(key.name)} "
           f"{code(key.key_hash.hex())})." if key is not None
           else "signatures not checked: the manifest names no key.")
    )
    table = pd.DataFrame([
        {"chain": f.chain, "file": f.name, "bytes": f.size_bytes, "modified": f.modified,
         "records": f.records, "signed at": f.signed_at, "segment": f.segment,
         "Merkle root": f.root, "signature": f.signature, "problem": f.problem or ""}
        for f in files
    ])
    table["records"] = table["records"].astype("Int64")
    st.dataframe(table, hide_index=True, width="stretch")
    bad = [f for f in files if f.problem is not None]
    forged = [f for f in files if f.signature.startswith("BAD")]
    if bad:
        st.error(f"{len(bad)} checkpoint file(s) do not parse, first {code(bad[0].name)}: "
                 f"{literal(bad[0].problem)}.")
    if forged:
        st.error(f"{len(forged)} checkpoint(s) are not signed by the key the data was "
                 f"verified with, first {code(forged[0].name)}. Run the verification below.")


def _quarantine_section(root: Path, stamp: tuple[Any, ...]) -> None:
    st.header("Quarantine")
    found = _quarantine(str(root), stamp)
    if found.total == 0:
        st.success("No message was quarantined: every message ingest read is in the log.")
        return
    st.warning(f"{found.total:,} message(s) kept out of the log, in {found.files:,} "
               "file(s). Each is in the topic and named here with the reason ingest gave; "
               "none of them was replayed.")
    table = pd.DataFrame([asdict(e) for e in found.entries])
    table = table.rename(columns={"where": "topic[partition]@offset", "value_bytes": "bytes"})
    table["bytes"] = table["bytes"].astype("Int64")
    st.dataframe(table, hide_index=True, width="stretch")
    if found.total > len(found.entries):
        st.caption(f"The first {len(found.entries):,} of {found.total:,} are listed.")


def _findings_section(ctx: PageContext) -> None:
    st.header("Log-level findings")
    path = ctx.root / FINDINGS
    if not path.is_file():
        st.info(f"No {code(path)}: run `python -m replay`.")
        return
    try:
        info = path.stat()
        kinds, rows, total = _findings(ctx.con, str(path),
                                       (str(path), info.st_mtime_ns, info.st_size))
    except (duckdb.Error, OSError) as error:
        st.error(f"Could not read {code(path)}: {literal(f'{type(error).__name__}: {error}')}. "
                 "Run `python -m replay` again.")
        return
    if total == 0:
        st.success("Replay found nothing wrong in the log itself (no gap or repeat in a "
                   "table's sequence, no record that does not decode).")
        return
    st.warning(f"{total:,} finding(s) about the log itself: what replay met while folding "
               "the events (not narrowed by the filters).")
    st.dataframe(kinds, hide_index=True)
    st.dataframe(rows, hide_index=True, width="stretch")
    if total > len(rows):
        st.caption(f"The first {len(rows):,} of {total:,} are listed.")


def _verify_section(ctx: PageContext, manifest: integrity.Manifest) -> None:
    root = ctx.root
    st.header("Verify the log yourself")
    st.markdown("With the public key you pinned and the checkpoint you kept, from a terminal:")
    st.code(integrity.verify_command(root), language="bash")
    st.markdown("Or here, now: this reads the whole log, which takes a while on a big one.")
    pinned = st.text_input(
        "Public key (pinned)", key="integrity_key",
        placeholder="name+8hexdigits+base64key (empty: the key beside the log)",
        help="The verifier key in signed-note form, as in keys/signing.pub.")
    kept = st.text_area(
        "A checkpoint you kept (paste it)", key="integrity_kept", height=120,
        help="A signed checkpoint you copied at an earlier visit (checkpoints/"
             "latest.checkpoint, or one from the checkpoint topic): the log must hold at "
             "least as many records, with the same root.")
    upload = st.file_uploader("or upload it", key="integrity_kept_file",
                              type=["checkpoint", "txt"])
    witnesses = st.text_area(
        "Witness keys (one a line)", key="integrity_witness", height=68,
        help="Verifier keys of witnesses whose cosignature the checkpoints must carry.")
    if st.button("Verify the log now", key="integrity_verify"):
        text = kept
        if upload is not None:
            text = upload.getvalue()[: 64 * 65536].decode("utf-8", "replace")
        with st.spinner("Verifying every record, the hash chains and every checkpoint..."):
            result = integrity.verify_now(root, pinned, manifest, kept=text,
                                          witnesses=witnesses.splitlines())
        ctx.record("log_verified", str(root), ok=result.ok, key=result.key[:200],
                   kept=bool(text.strip()), witness=result.witness[:200],
                   line=result.line[:500])
        st.session_state[VERIFIED_KEY] = (str(root), result)
    last = st.session_state.get(VERIFIED_KEY)
    if last is not None and last[0] == str(root):
        result = last[1]
        (st.success if result.ok else st.error)(
            f"{'Verified' if result.ok else 'Did not verify'} at {result.at}, with "
            f"{literal(result.key)}:")
        st.code(result.line, language=None, wrap_lines=True)
        if result.witness:
            (st.caption if result.witness.startswith("cosigned") else st.warning)(
                literal(result.witness))
