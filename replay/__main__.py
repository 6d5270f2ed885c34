"""``python -m replay``: rebuild rounds from the log, judge round documents, count hands,
and recall a round (``round``) or a table's last rounds (``table``) as a dispute needs them.

Exit codes: 0 done; 1 the log did not verify or could not be read (``run``), a round or a
table that replay wrote nothing for (``round``, ``table``: the message says how to find
one), a round that ``round --proof`` could not prove; 2 the command cannot run (bad
arguments, no data, unreadable outputs, a round id at several tables without ``--casino``
or ``--table``), or a round document was rejected (``adjudicate``)."""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Callable

    from replay.batch_decode import KeptRecords
    from schemas.log_verify import DataVerdict

REPO = Path(__file__).resolve().parent.parent
COMMANDS = ("run", "adjudicate", "census", "round", "table", "rulesets", "house-way",
            "whatif")

EPILOG = """\
commands:
  run          (the default) fold DATA/log into rounds, judge each, write DATA/replay/*.parquet
  adjudicate   judge round documents (JSON, or JSON lines) and print one result per round
  census       count every hand of a game's deck by category
  round        one round as a dispute needs it: hands with why each won or lost, wagers
               recorded against expected, the timeline, findings, flags, ruleset, proof;
               --html FILE writes it as one printable page
  table        a table's last rounds in the order it dealt them
  rulesets     check a rulesets directory (casinos' filings: rulesets check DIR), or list
               the rulesets rounds are judged by (rulesets list [DIR])
  house-way    check a casino's house-way file (docs/house-way.md): its rules, how it sets
               given hands, --coverage (python -m replay house-way check --help)
  whatif       judge a period again under a proposed ruleset and write, under DATA/whatif/,
               the wagers whose expected settlement changes and the money moved by table,
               game and wager (docs/whatif.md); replay's own outputs are not touched

examples:
  python -m replay                              replay ./var/log into ./var/replay
  python -m replay --data var/demo              replay the demo's log
  python -m replay --data var/demo --workers 2  the same on two cores (identical files)
  python -m replay --rulesets docs/examples/rulesets   judge casino C02 by its own filings
  python -m replay rulesets check docs/examples/rulesets
  python -m replay adjudicate rounds.jsonl      judge round documents
  echo '{"round_id": ...}' | python -m replay adjudicate -
  python -m replay census --game caribbean_stud --cards 5
  python -m replay round T01-000001 --data var/demo            the round in the terminal
  python -m replay round T01-000001 --data var/demo --html r.html --proof
  python -m replay table T01 --last 10 --data var/demo         the table's last ten rounds
  python -m replay house-way check my-casino.way --hand "As Ad Kc Kd 9h 7s 2c" --coverage
  python -m replay whatif --ruleset proposed.json --data var/demo --since 2026-11-28

run judges every game (classic and Face Up pai gow poker, pai gow tiles, Caribbean stud)
with the same judge as adjudicate, and writes (under DATA/replay/), one row each:
  rounds.parquet    round: game, table, dealer, banker, ruleset, evaluated or why not (a
                    round is evaluated only when every recorded wager was judged), the kinds
                    of its problems, one-line notation
  hands.parquet     hand: cards or tiles as dealt and as set, ranks, foul, re-sets, house way
  wagers.parquet    wager (every wager, the dealer's own against a player banker too):
                    recorded and expected outcome, net and commission, in cents
  envy.parquet      Envy Bonus: recorded and expected per seat, and each payment
  bankers.parquet   player banker's account: recorded and expected
  jackpots.parquet  progressive winner: award, meter, each verification step
  timeline.parquet  event of a round, in the table's order: when, who recorded it, what it
                    was in words, and the corrections (what each corrects, what it replaced)
  findings.parquet  the log: duplicates, sequence gaps, records that do not decode
A rulesets directory (--rulesets DIR, or $CATWALK_RULESETS) holds casinos' own rulesets,
DIR/<casino>/<id>.json (docs/rulesets.md); manifest.json lists each file and its SHA-256.
Same log and rulesets give byte-identical files. The round document is in the README;
the rules are in docs/rules.md.
"""


def _parser() -> argparse.ArgumentParser:
    from replay.document import LIMITS

    p = argparse.ArgumentParser(
        prog="python -m replay",
        description="Rebuild every round from the append-only log and judge it under the "
        "ruleset in force when it was dealt; judge round documents; count hands.",
        epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sub = p.add_subparsers(dest="command",
                           metavar="{run,adjudicate,census,round,table,rulesets,whatif}")
    run = sub.add_parser("run", help="replay the log to Parquet (the default)")
    run.add_argument("--data", type=Path, default=None,
                     help="data directory holding log/ (default $CATWALK_DATA or ./var)")
    run.add_argument("--workers", type=_workers, default=1, metavar="N",
                     help="processes that fold and judge the tables' records (default 1); "
                     "the files are the same, byte for byte, for any N")
    run.add_argument("--key", default=None, metavar="PUBLIC_KEY",
                     help="the public key the log's checkpoints must verify with: its text or "
                     "a file (default: keys/signing.pub under --data)")
    run.add_argument("--unverified", action="store_true",
                     help="replay a log that does not verify anyway; every output then says "
                     "so (manifest.json, Parquet metadata, the checks, the dashboard)")
    run.add_argument("--output-key", default=None, metavar="FILE",
                     help="the key replay signs manifest.json with (default "
                     "$CATWALK_OUTPUT_KEY, else keys/outputs.key under --data, made on first "
                     "use; its public half keys/outputs.pub)")
    run.add_argument("--rulesets", type=Path, default=None, metavar="DIR",
                     help="judge each casino's rounds by its own rulesets in DIR "
                     "(DIR/<casino>/<id>.json: docs/rulesets.md; default $CATWALK_RULESETS, "
                     "else the shipped rulesets alone); a DIR with any problem is refused")
    adj = sub.add_parser(
        "adjudicate", help="judge round documents",
        description="Read one round document or JSON lines of them from FILE ('-' for "
        "standard input) and print one result per round as JSON lines. A round that cannot "
        "be judged is named on standard error with what is wrong; the others are still "
        "judged; the exit code is 2 when any round was rejected. Limits on the input: "
        + LIMITS + ".")
    adj.add_argument("file", metavar="FILE", help="round documents, or - for standard input")
    cen = sub.add_parser("census", help="count every hand of a deck by category",
                         description="Print one JSON object: for every hand of CARDS cards "
                         "from the game's deck, the count per category, plus total.")
    cen.add_argument("--game", required=True, choices=["pai_gow_poker", "caribbean_stud"])
    cen.add_argument("--cards", required=True, type=int, choices=[5, 7])
    from replay.dispute_cli import add_round_parser, add_table_parser
    from replay.rulesets_cli import add_rulesets_parser

    add_round_parser(sub)
    add_table_parser(sub)
    add_rulesets_parser(sub)
    from replay.whatif_cli import add_whatif_parser

    add_whatif_parser(sub)
    return p


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or (argv[0] not in COMMANDS and argv[0] not in ("-h", "--help")):
        argv.insert(0, "run")
    if argv[0] == "house-way":
        from replay.house_way_cli import main as house_way_main

        return house_way_main(argv[1:])
    args = _parser().parse_args(argv)
    if args.command == "adjudicate":
        return _adjudicate(args.file)
    if args.command == "census":
        return _census(args.game, args.cards)
    if args.command == "rulesets":
        from replay.rulesets_cli import rulesets_command

        return rulesets_command(args)
    if args.command in ("round", "table"):
        from replay.dispute_cli import round_command, table_command

        data = args.data or Path(os.environ.get("CATWALK_DATA") or REPO / "var")
        if args.command == "round":
            return round_command(data, args.round_id, html=args.html, proof=args.proof,
                                 key=args.key, casino=args.casino, table_id=args.table)
        return table_command(data, args.table_id, last=args.last, casino=args.casino)
    if args.command == "whatif":
        from replay.whatif_cli import whatif_command

        return whatif_command(args, args.data or Path(os.environ.get("CATWALK_DATA")
                                                      or REPO / "var"))
    from replay.rulesets_cli import rulesets_dir

    return _run(args.data or Path(os.environ.get("CATWALK_DATA") or REPO / "var"),
                args.workers, key=args.key, unverified=args.unverified,
                rulesets=rulesets_dir(args.rulesets), output_key=args.output_key)


def _adjudicate(file: str) -> int:
    from replay.adjudicate import dumps, judge_stream, one_line

    shown = one_line(file, 200)
    try:
        source = sys.stdin.buffer if file == "-" else open(file, "rb")  # noqa: SIM115
    except OSError as exc:
        print(f"adjudicate: cannot read {shown}: {exc.strerror}; give a file of round "
              "documents, or - for standard input", file=sys.stderr)
        return 2
    rejected = 0
    try:
        with source:
            for judged in judge_stream(source):
                if judged.result is not None:
                    print(dumps(judged.result), flush=False)
                else:
                    rejected += 1
                    print(f"adjudicate: {shown} line {judged.line}: round "
                          f"{one_line(judged.round, 100)}: {judged.error}", file=sys.stderr)
        sys.stdout.flush()
    except OSError as exc:
        if isinstance(exc, BrokenPipeError):  # the reader of standard output went away
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            return 2
        print(f"adjudicate: cannot read {shown}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    return 2 if rejected else 0


def _census(game: str, cards: int) -> int:
    try:
        from replay.census import census  # type: ignore[import-not-found,unused-ignore]
    except ImportError:
        print("census: not available yet in this version", file=sys.stderr)
        return 2
    print(json.dumps(census(game, cards), sort_keys=False))
    return 0


def _workers(text: str) -> int:
    try:
        n = int(text)
    except ValueError:
        n = 0
    if n < 1:
        raise argparse.ArgumentTypeError(f"--workers must be a whole number from 1, got {text!r}")
    return n


def _refused(data: Path, why: str) -> None:
    """Record beside ``data/replay`` that replay refused the log (replay.run.mark_refused),
    so that the dashboard says so above the last replay's data."""
    from replay.refusal import mark_refused

    mark_refused(data / "replay", why)


def _provenance(data: Path, key: str | None, unverified: bool,
                keep: KeptRecords | None = None,
                verify: Callable[..., DataVerdict] | None = None) -> dict[str, Any] | None:
    """Verify the log first, every chain of it (docs/log-integrity.md): what the outputs will
    say of it, or None when replay must refuse (said on standard error). With several
    chains, ``root`` and ``checkpoint`` name each chain (schemas.log_verify.DataVerdict).
    ``keep`` is given the records verification reads; ``verify`` verifies as
    ``schemas.log_verify.verify_data`` does (the default; the live loop's goes on from its
    last pass: schemas.log_resume.ResumableVerifier)."""
    from schemas.checkpoint import CheckpointError, read_verifier
    from schemas.log_verify import verify_data

    try:
        verifier = read_verifier(key or data / "keys" / "signing.pub")
    except CheckpointError as exc:
        line = f"not verified: no public key to check the log with ({exc})"
        if not unverified:
            print(f"replay: {line}. Give the key with --key, or replay anyway with "
                  "--unverified (every output will say so)", file=sys.stderr)
            _refused(data, f"the log could not be verified: {line}")
            return None
        print(f"replay: WARNING: {line}; replaying anyway (--unverified)", file=sys.stderr)
        return {"verified": False, "verification": line, "records": None, "root": None,
                "checkpoint": None, "key_fingerprint": None, "key_pinned": False}
    verdict = (verify or verify_data)(data, verifier, keep=keep)
    if not verdict.ok and not unverified:
        print(f"replay: REFUSED: the log does not verify: {verdict.line()}. Nothing was "
              "written. Find out why with `python -m ingest verify`; to replay it anyway, "
              "marked as unverified everywhere, add --unverified", file=sys.stderr)
        _refused(data, f"the log does not verify: {verdict.line()}")
        return None
    if not verdict.ok:
        print(f"replay: WARNING: the log does not verify ({verdict.problem}); replaying "
              "anyway (--unverified): every output is marked unverified", file=sys.stderr)
    return {"verified": verdict.ok,
            "verification": verdict.line() if verdict.ok else f"not verified: {verdict.problem}",
            "records": verdict.records, "root": verdict.root,
            "checkpoint": verdict.checkpoint_text, "key_fingerprint": verifier.vkey,
            "key_pinned": key is not None}


def _run(data: Path, workers: int = 1, *, key: str | None = None,
         unverified: bool = False, rulesets: Path | None = None,
         output_key: str | None = None) -> int:
    from replay.batch_decode import KeptRecords
    from replay.parallel import ReplayWorkerError, pyarrow_without_pandas
    from replay.run import replay, start_workers
    from schemas.logformat import LogError

    pyarrow_without_pandas()  # this process converts nothing to or from pandas

    if not (data / "log").is_dir():
        print(f"replay: no log at {data / 'log'}: run `python -m ingest` first "
              "(or `make demo`)", file=sys.stderr)
        return 2
    from replay.rulesets_cli import load_book

    book = load_book(rulesets)
    if isinstance(book, int):
        return book
    from replay.outputs import OutputsError, output_signer

    try:
        signer = output_signer(data, output_key)
    except OutputsError as exc:
        print(f"replay: cannot sign the outputs: {exc}", file=sys.stderr)
        return 2

    def progress(n: int) -> None:
        print(f"replay: {n:,} rounds judged", file=sys.stderr, flush=True)

    try:
        # The helpers start and warm up while this process verifies the log, and are
        # dealt their tables' records as verification reads them; nothing is written
        # unless the log verified (or --unverified), and they are stopped on the way out.
        # The records verification read are replayed (the log is read once) when the log
        # verified; otherwise (--unverified) the log is read again, as far as it can be
        # (what was dealt is kept only where it is what was read again).
        with start_workers(workers, book) as pool:
            kept = KeptRecords(deal=pool.deal)
            provenance = _provenance(data, key, unverified, kept)
            if provenance is None:
                return 1
            summary = replay(data / "log", data / "replay", progress, workers=pool,
                             provenance=provenance,
                             records=kept if provenance["verified"] else None, book=book,
                             signer=signer)
    except LogError as exc:
        print(f"replay: the log cannot be read: {exc}. Run `python -m ingest verify`.",
              file=sys.stderr)
        _refused(data, f"the log cannot be read: {exc}")
        return 1
    except ReplayWorkerError as exc:
        print(f"replay: {exc}", file=sys.stderr)
        return 1
    for finding in summary.findings:
        print(f"replay: finding: {finding}", file=sys.stderr)
    print(f"replay: {summary.rounds} rounds ({summary.evaluated} evaluated), "
          f"{summary.wagers} wagers, {len(summary.findings)} log findings -> {data / 'replay'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
