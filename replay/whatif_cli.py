"""``python -m replay whatif``: judge a period again under a proposed ruleset and write the
comparison (replay/whatif.py; docs/whatif.md), never touching replay's own outputs.

It verifies the log first as ``python -m replay`` does and refuses one that does not verify
(exit 1; the refusal is recorded beside ``DATA/replay`` as replay records it, since it is a
fact about the log, not about the what-if). It then folds the log, judges the selected
rounds twice, and publishes, atomically (``replay.run.publish``), under
``DATA/whatif/<ruleset id>_<since>_<until>[_<casino>]/`` (or ``--out``):

- ``whatif_rounds.parquet``: every wager whose expected settlement changes;
- ``whatif_summary.parquet``: by casino, table, game and wager, the wagers judged and
  changed, the patrons' expected net under each ruleset and the difference;
- ``whatif_not_evaluated.parquet``: the rounds not evaluated under either ruleset, with why;
- ``whatif.json``: the manifest: the log it was built from (tree size, root, the signed
  checkpoint, the key), both rulesets with the SHA-256 of their data, the period, the
  casino, the counts, and each file's SHA-256. The manifest itself is not signed.

Same log and rulesets: byte-identical files, for any number of workers."""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import sys
from pathlib import Path
from typing import Any

WHATIF_FORMAT = "catwalk-whatif-manifest/1"
MANIFEST = "whatif.json"
FILES = {"changed": "whatif_rounds.parquet", "summary": "whatif_summary.parquet",
         "not_evaluated": "whatif_not_evaluated.parquet"}
WHATIF_DIR = "whatif"

EXAMPLES = """\
examples:
  python -m replay whatif --ruleset my-paytable.json --data var/demo
  python -m replay whatif --ruleset caribbean_stud-standard-v1 --casino C01 \\
      --since 2026-11-28 --until 2026-11-30 --data var/demo --workers 2
  python -m replay whatif --data var/demo \\
      --ruleset docs/examples/rulesets/C02/pai_gow_poker-c02-flamingo-v1.json
      (another house way: the dealer's hand is set again by it, docs/whatif.md)
  python -m replay whatif --ruleset proposed.json --rulesets casino-filings/ --casino C02
      (production judged by the casinos' own filings, as `python -m replay --rulesets`)
"""


class Refused(Exception):
    """The arguments cannot be used; the message says which and why (exit 2)."""


def add_whatif_parser(sub: Any) -> None:
    """The ``whatif`` subcommand's arguments."""
    p = sub.add_parser(
        "whatif", help="judge a period again under a proposed ruleset and compare",
        description="Judge the rounds of the proposed ruleset's game again under it (the "
        "same engine, the same rounds) beside production's judgement, and write the wagers "
        "whose expected settlement changes and the money moved by table, game and wager, "
        "under DATA/whatif/ (never DATA/replay/). Money is the patrons' net in cents: "
        "positive, to the patrons.", epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--ruleset", required=True, metavar="ID",
                   help="a shipped ruleset id, or the path of a ruleset JSON file "
                   "(the layout of replay/rulesets/*.json)")
    p.add_argument("--data", type=Path, default=None,
                   help="data directory holding log/ (default $CATWALK_DATA or ./var)")
    p.add_argument("--casino", default=None, help="only this casino's rounds")
    p.add_argument("--rulesets", type=Path, default=None, metavar="DIR",
                   help="the casinos' rulesets production judged by, as given to "
                   "`python -m replay --rulesets` (docs/rulesets.md; default "
                   "$CATWALK_RULESETS, else the shipped rulesets alone)")
    p.add_argument("--game", default=None,
                   help="the game (must be the ruleset's; by default the ruleset's)")
    p.add_argument("--since", default=None, metavar="YYYY-MM-DD",
                   help="first day dealt (UTC), included")
    p.add_argument("--until", default=None, metavar="YYYY-MM-DD",
                   help="last day dealt (UTC), included")
    p.add_argument("--out", type=Path, default=None, metavar="DIR",
                   help="where to write (default DATA/whatif/<ruleset id>_<since>_<until>"
                   "[_<casino>])")
    p.add_argument("--workers", type=int, default=1, metavar="N",
                   help="processes that fold and judge (default 1); the same files for any N")
    p.add_argument("--key", default=None, metavar="PUBLIC_KEY",
                   help="the public key the log's checkpoints must verify with: its text or "
                   "a file (default: keys/signing.pub under --data)")


def _day(name: str, text: str | None) -> dt.date | None:
    from replay.rulesets import strict_date

    if text is None:
        return None
    day = strict_date(text)
    if day is None:
        raise Refused(f"{name} must be a date written YYYY-MM-DD, got {text!r}")
    return day


def load_proposed(given: str) -> tuple[Any, str]:
    """The proposed ruleset and where it came from: a shipped id, or a JSON file."""
    from replay.errors import RulesetError, UnknownRulesetError
    from replay.rulesets import load_ruleset, ruleset_from_dict, shipped_rulesets

    path = Path(given)
    if given.endswith(".json") or path.exists():
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise Refused(f"--ruleset {given}: cannot be read: "
                          f"{getattr(exc, 'strerror', None) or exc}") from None
        try:
            data = json.loads(text)
        except ValueError as exc:
            raise Refused(f"--ruleset {given}: not valid JSON: {exc}") from None
        try:
            return ruleset_from_dict(data, source=given, base=path.parent), given
        except RulesetError as exc:
            raise Refused(f"--ruleset: not a valid ruleset: {exc}") from None
    try:
        return load_ruleset(given), f"replay/rulesets/{given}.json"
    except UnknownRulesetError:
        ids = ", ".join(sorted(r.id for r in shipped_rulesets()))
        raise Refused(f"--ruleset {given!r} is neither a shipped ruleset nor a file; shipped: "
                      f"{ids}; or give the path of a ruleset JSON file") from None


def default_out(data: Path, ruleset_id: str, since: dt.date | None, until: dt.date | None,
                casino: str | None) -> Path:
    """``DATA/whatif/<ruleset id>_<since>_<until>[_<casino>]`` (``all`` for an open end)."""
    name = f"{ruleset_id}_{since or 'all'}_{until or 'all'}"
    if casino is not None:
        name += f"_{casino}"
    return data / WHATIF_DIR / name


def _inside(path: Path, folder: Path) -> bool:
    path, folder = Path(os.path.realpath(path)), Path(os.path.realpath(folder))
    return path == folder or folder in path.parents


def whatif_command(args: argparse.Namespace, data: Path) -> int:
    """Run ``python -m replay whatif``: 0 written; 1 the log refused; 2 bad arguments."""
    try:
        since, until = _day("--since", args.since), _day("--until", args.until)
        if since is not None and until is not None and since > until:
            raise Refused(f"--since {since} is after --until {until}: give the first day "
                          "first")
        if args.workers < 1:
            raise Refused(f"--workers must be a whole number from 1, got {args.workers}")
        proposed, source = load_proposed(args.ruleset)
        if args.game is not None and args.game != proposed.game:
            raise Refused(f"--game {args.game}: ruleset {proposed.id} is for {proposed.game}; "
                          "a what-if judges the game of its ruleset")
        if not (data / "log").is_dir():
            raise Refused(f"no log at {data / 'log'}: run `python -m ingest` first "
                          "(or `make demo`)")
        out = args.out or default_out(data, proposed.id, since, until, args.casino)
        if _inside(out, data / "replay") or _inside(data / "replay", out):
            raise Refused(f"--out {out}: a what-if never writes into or over replay's "
                          f"outputs ({data / 'replay'}); choose another directory")
        if out.is_dir() and not out.is_symlink() and not (out / MANIFEST).is_file():
            raise Refused(f"--out {out} is a directory that holds no what-if ({MANIFEST}): "
                          "a what-if replaces its output directory whole; name a new one")
    except Refused as exc:
        print(f"whatif: {exc}", file=sys.stderr)
        return 2
    from replay.rulesets_cli import load_book, rulesets_dir
    from replay.whatif import WhatIf

    book = load_book(rulesets_dir(args.rulesets), "whatif")
    if isinstance(book, int):
        return book
    base = str(Path(source).parent) if source.endswith(".json") else None
    what = WhatIf.of(proposed, source=source, casino=args.casino, since=since, until=until,
                     book=book, base=base)
    return _run(data, out, what, workers=args.workers, key=args.key)


def _verified(data: Path, key: str | None, kept: Any) -> dict[str, Any] | None:
    """Verify the log as ``python -m replay`` does; None (said, and recorded beside
    DATA/replay as replay records a refusal) when it does not verify."""
    from replay.refusal import mark_refused
    from schemas.checkpoint import CheckpointError
    from schemas.keyring import NOT_PINNED, log_key
    from schemas.log_verify import verify_data

    try:
        verifier, choice = log_key(data, key)
    except CheckpointError as exc:
        line = f"not verified: no public key to check the log with ({exc})"
        print(f"whatif: REFUSED: {line}. Give the key with --key. Nothing was written.",
              file=sys.stderr)
        mark_refused(data / "replay", f"the log could not be verified: {line}")
        return None
    verdict = verify_data(data, verifier, keep=kept)
    if not verdict.ok:
        print(f"whatif: REFUSED: the log does not verify: {verdict.line()}. Nothing was "
              "written. Find out why with `python -m ingest verify`", file=sys.stderr)
        mark_refused(data / "replay", f"the log does not verify: {verdict.line()}")
        return None
    words = verdict.line()
    if not choice.pinned:
        print(f"whatif: WARNING: {NOT_PINNED}: the log verifies only with {choice.source}",
              file=sys.stderr)
        words = f"{NOT_PINNED}: {words} (checked with {choice.source})"
    return {"verified": choice.pinned, "verification": words, "records": verdict.records,
            "root": verdict.root, "checkpoint": verdict.checkpoint_text,
            "key_fingerprint": verifier.vkey, "key_pinned": choice.pinned}


def _run(data: Path, out: Path, what: Any, *, workers: int, key: str | None) -> int:
    from replay.batch_decode import KeptRecords, log_entries
    from replay.errors import ReplayError
    from replay.parallel import ReplayWorkerError, Workers, pyarrow_without_pandas, replay_entries
    from replay.whatif import row_maker
    from schemas.logformat import LogError

    pyarrow_without_pandas()
    rows = row_maker(what)

    def progress(n: int) -> None:
        if n % 10_000 == 0:
            print(f"whatif: {n:,} rounds judged twice", file=sys.stderr, flush=True)

    import signal

    from replay.stopping import Terminated, _terminated

    previous = signal.getsignal(signal.SIGTERM)
    try:
        with Workers(workers, rows) as pool:
            signal.signal(signal.SIGTERM, _terminated)  # after the helpers started
            kept = KeptRecords(deal=pool.deal)
            print(f"whatif: verifying the log {data / 'log'}", file=sys.stderr, flush=True)
            log = _verified(data, key, kept)
            if log is None:
                return 1
            print(f"whatif: {log['verification']}; judging {what.game} rounds twice",
                  file=sys.stderr, flush=True)
            done = replay_entries(log_entries(data / "log", kept), rows, workers=pool,
                                  progress=progress)
        written = write_whatif(out, done.tables, what, log)
    except LogError as exc:
        print(f"whatif: the log cannot be read: {exc}. Run `python -m ingest verify`.",
              file=sys.stderr)
        return 1
    except ReplayWorkerError as exc:
        print(f"whatif: {exc}", file=sys.stderr)
        return 1
    except ReplayError as exc:
        print(f"whatif: {exc}; nothing was written", file=sys.stderr)
        return 2
    except Terminated:
        print("whatif: stopped (SIGTERM): its helper processes were stopped, nothing was "
              "written", file=sys.stderr)
        return 128 + signal.SIGTERM
    finally:
        signal.signal(signal.SIGTERM, previous)
    if not written["counts"]["rounds_selected"]:
        where = f" at casino {what.casino}" if what.casino else ""
        print(f"whatif: no {what.game} round of the log was dealt in the period{where}: "
              "nothing to compare", file=sys.stderr)
    print(report(written, out))
    return 0


def write_whatif(out: Path, tables: dict[str, Any], what: Any,
                 log: dict[str, Any]) -> dict[str, Any]:
    """Write the what-if's files and manifest under ``out``, published atomically; the
    manifest written."""
    import pyarrow as pa
    import pyarrow.compute as pc

    from replay.parallel import write_parquet
    from replay.run import _write_synced, code_version, publish
    from replay.whatif import (
        CHANGED,
        ROUNDS,
        SIGN,
        SUMMARY,
        production_rulesets,
        ruleset_sha256,
        summary_rows,
    )

    rounds = tables["rounds"]
    summary = summary_rows(tables["totals"])
    not_evaluated = rounds.filter(pc.invert(rounds["judged"])).drop_columns(["judged",
                                                                           "changed"])
    before = [r for r in rounds["ruleset_before"].to_pylist() if r is not None]
    proposed = what.proposed
    counts = {
        "rounds_selected": rounds.num_rows,
        "rounds_judged": pc.sum(rounds["judged"]).as_py() or 0,
        "rounds_changed": pc.sum(rounds["changed"]).as_py() or 0,
        "rounds_not_evaluated": not_evaluated.num_rows,
        "rounds_dealer_reset": pc.sum(rounds["dealer_reset"]).as_py() or 0,
        "wagers_judged": sum(r["wagers_judged"] for r in summary),
        "wagers_changed": sum(r["wagers_changed"] for r in summary),
        "net_before_cents": sum(r["net_before_cents"] for r in summary),
        "net_after_cents": sum(r["net_after_cents"] for r in summary),
        "difference_cents": sum(r["difference_cents"] for r in summary),
    }
    manifest: dict[str, Any] = {
        "format": WHATIF_FORMAT, "what_if": True,
        "production": False,
        "signed": False,
        "verified": log["verified"], "verification": log["verification"],
        "key_pinned": bool(log.get("key_pinned")),
        "log": {k: log[k] for k in ("records", "root", "checkpoint", "key_fingerprint")},
        "rulesets": {
            "production": production_rulesets(before, what.book),
            "files": [] if what.book is None else list(what.book.manifest_files()),
            "proposed": {"id": proposed.id, "sha256": ruleset_sha256(proposed),
                         "source": what.proposed_source},
        },
        "game": proposed.game, "casino": what.casino,
        "since": None if what.since is None else what.since.isoformat(),
        "until": None if what.until is None else what.until.isoformat(),
        "counts": counts, "sign": SIGN, "code_version": code_version(),
    }
    rulesets = {"production": manifest["rulesets"]["production"],
                "proposed": {k: manifest["rulesets"]["proposed"][k] for k in ("id", "sha256")}}
    metadata = {b"catwalk.whatif": json.dumps(
        {"rulesets": rulesets, **{k: manifest[k] for k in (
            "format", "what_if", "game", "casino", "since", "until", "sign")}},
        sort_keys=True).encode()}
    outputs = {
        FILES["changed"]: tables["changed"].cast(CHANGED),
        FILES["summary"]: pa.Table.from_pylist(summary, schema=SUMMARY),
        FILES["not_evaluated"]: not_evaluated.cast(
            pa.schema([f for f in ROUNDS if f.name not in ("judged", "changed")])),
    }

    def write(build: Path) -> None:
        files = {name: write_parquet(table.replace_schema_metadata(metadata), build / name)
                 for name, table in outputs.items()}
        manifest["files"] = files
        _write_synced(build / MANIFEST, (json.dumps(manifest, sort_keys=True, indent=2,
                                                    ensure_ascii=False) + "\n").encode())

    publish(out, write)
    return manifest


def report(manifest: dict[str, Any], out: Path) -> str:
    """The short report printed on standard output (``manifest``: the what-if's, the money
from the summary file written under ``out``)."""
    import pyarrow.parquet as pq

    from replay.money import format_cents
    from replay.whatif import moved_by_game_and_wager

    c = manifest["counts"]
    before = ", ".join(r["id"] for r in manifest["rulesets"]["production"]) or "none"
    period = ("on any day" if manifest["since"] is None and manifest["until"] is None else
              f"from {manifest['since'] or 'the first day'} to "
              f"{manifest['until'] or 'the last day'}")
    where = f" at casino {manifest['casino']}" if manifest["casino"] else ""
    lines = [
        f"whatif: {manifest['game']} rounds dealt {period} (UTC){where}: "
        f"{manifest['rulesets']['proposed']['id']} (proposed) against {before} (production)",
        f"whatif: rounds judged under both rulesets: {c['rounds_judged']:,}; changed: "
        f"{c['rounds_changed']:,} ({c['wagers_changed']:,} of {c['wagers_judged']:,} wagers); "
        f"not evaluated under one or both: {c['rounds_not_evaluated']:,} (listed in "
        f"{FILES['not_evaluated']}, counted neither changed nor unchanged)",
        *([f"whatif: the proposed house way set the dealer's hand otherwise in "
           f"{c['rounds_dealer_reset']:,} rounds, judged with that hand (docs/whatif.md)"]
          if c.get("rounds_dealer_reset") else []),
        "whatif: money moved, the patrons' expected net, proposed minus production "
        "(positive: to the patrons, negative: to the house):",
    ]
    summary = pq.read_table(out / FILES["summary"]).to_pylist()
    for game, wager, changed, judged, diff in moved_by_game_and_wager(summary):
        lines.append(f"  {game} {wager}: {format_cents(diff, signed=True)} "
                     f"({changed:,} of {judged:,} wagers changed)")
    lines.append(f"whatif: total {format_cents(c['difference_cents'], signed=True)}; "
                 f"written to {out} ({MANIFEST}, {', '.join(FILES.values())})")
    return "\n".join(lines)
