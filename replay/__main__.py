"""``python -m replay``: rebuild rounds from the log, judge round documents, count hands,
and recall a round (``round``) or a table's last rounds (``table``) as a dispute needs them.

Exit codes: 0 done; 1 the log did not verify or could not be read (``run``), a round or a
table that replay wrote nothing for (``round``, ``table``: the message says how to find
one), a round that ``round --proof`` could not prove; 2 the command cannot run (bad
arguments, no data, unreadable outputs, a round id at several tables without ``--casino``
or ``--table``), or a round document was rejected (``adjudicate``); 143 stopped by SIGTERM
(``run``: its helper processes stopped, nothing written).

``run`` checks the log with ``--key``, else the log keys of the keyring
``CATWALK_TRUSTED_KEYS`` names, else ``keys/signing.pub`` beside it, which every output then
calls "unverified: key not pinned" (schemas/keyring.py), and holds it against the largest
tree verified before (``DATA/replay.trusted-tree.json``, replay/high_water.py; ``--restored
REASON`` after a deliberate restore)."""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from replay.stopping import Terminated, _terminated

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
                    was in words and as typed columns (seat, position, wager, outcome,
                    action), and the corrections (what each corrects, what it replaced)
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
                     "a file (default: the log keys of the keyring $CATWALK_TRUSTED_KEYS "
                     "names, else keys/signing.pub under --data, and every output then says "
                     "'unverified: key not pinned')")
    run.add_argument("--unverified", action="store_true",
                     help="replay a log that does not verify anyway; every output then says "
                     "so (manifest.json, Parquet metadata, the checks, the dashboard)")
    run.add_argument("--restored", default=None, metavar="REASON",
                     help="the log was restored from a backup, deliberately: replace the "
                     "largest tree verified (DATA/replay.trusted-tree.json, which refuses a "
                     "shorter or rewritten log) by the log as it now verifies, recording "
                     "REASON, when, and what was dropped")
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
                rulesets=rulesets_dir(args.rulesets), restored=args.restored,
                output_key=args.output_key)


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
                verify: Callable[..., DataVerdict] | None = None,
                restored: str | None = None) -> dict[str, Any] | None:
    """Verify the log first, every chain of it (docs/log-integrity.md): what the outputs will
    say of it, or None when replay must refuse (said on standard error). With several
    chains, ``root`` and ``checkpoint`` name each chain (schemas.log_verify.DataVerdict).
    ``keep`` is given the records verification reads; ``verify`` verifies as
    ``schemas.log_verify.verify_data`` does (the default; the live loop's goes on from its
    last pass: schemas.log_resume.ResumableVerifier)."""
    from schemas.checkpoint import CheckpointError
    from schemas.keyring import NOT_PINNED, log_key

    try:
        verifier, choice = log_key(data, key)
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
    verdict = _against_marks(data, verifier, keep, verify, restored, choice.pinned)
    if not verdict.ok and not unverified:
        print(f"replay: REFUSED: the log does not verify: {verdict.line()}. Nothing was "
              "written. Find out why with `python -m ingest verify`; to replay it anyway, "
              "marked as unverified everywhere, add --unverified", file=sys.stderr)
        _refused(data, f"the log does not verify: {verdict.line()}")
        return None
    if not verdict.ok:
        print(f"replay: WARNING: the log does not verify ({verdict.problem}); replaying "
              "anyway (--unverified): every output is marked unverified", file=sys.stderr)
    words = verdict.line() if verdict.ok else f"not verified: {verdict.problem}"
    if verdict.ok and not choice.pinned:
        print(f"replay: WARNING: {NOT_PINNED}: the log verifies only with {choice.source}; "
              "every output says so (verified: false, key_pinned: false)", file=sys.stderr)
        words = f"{NOT_PINNED}: {words} (checked with {choice.source})"
    return {"verified": verdict.ok and choice.pinned, "verification": words,
            "records": verdict.records, "root": verdict.root,
            "checkpoint": verdict.checkpoint_text, "key_fingerprint": verifier.vkey,
            "key_pinned": choice.pinned}


def _against_marks(data: Path, verifier: Any, keep: KeptRecords | None,
                   verify: Callable[..., DataVerdict] | None,
                   restored: str | None, pinned: bool) -> DataVerdict:
    """The log verified (``verify``, else schemas.log_verify.verify_data) and held against
    the largest tree verified before (replay/high_water.py), whose checkpoints
    ``verify_data`` ties to the log; the live loop's verifier says the root at a size
    itself. A verdict that is ok is remembered (unless the marks refuse it): ``restored``,
    the operator's reason, replaces the marks by the log as it is; a verdict of a key
    that is not ``pinned`` raises no mark (it proves only that the directory agrees with
    itself), though it is held against the marks. The verdict's problem
    says why the marks refuse it. HighWaterError: the file cannot be read or written."""
    import contextlib
    import dataclasses

    from replay import high_water
    from schemas.log_verify import LONE, verify_data

    dropped: dict[str, high_water.Mark] = {}
    if restored is not None:  # the operator's word: the marks are dropped, not held
        with contextlib.suppress(high_water.HighWaterError):
            dropped = high_water.load(data)
    marks = {} if restored is not None else high_water.load(data)
    root_at: high_water.RootAt | None = None
    if verify is None or not marks:
        verdict = (verify or verify_data)(data, verifier, keep=keep,
                                          checkpoints=high_water.checkpoints(marks, data))
    else:
        verdict = verify(data, verifier, keep=keep)
        held = getattr(verify, "root_at", None)
        if callable(held):
            def root_at(chain: str, size: int) -> bytes | None:
                return held(size) if chain == LONE else None
    if verdict.ok or high_water.about_marks(verdict.problem, marks, data):
        why = high_water.judge(marks, verdict, root_at)
        if why is None and verdict.ok and root_at is not None and any(
                m.size < n and root_at(m.chain, m.size) is None
                for m, n in _sizes(marks, verdict)):
            # The live loop's verifier knows no root at a mark's size (a mark of another
            # process's pass, not at a segment's end): verify whole with the marks'
            # checkpoints, which ties each to the log.
            check = verify_data(data, verifier, checkpoints=high_water.checkpoints(marks, data))
            if not check.ok:
                why = high_water.judge(marks, check, None) or check.problem
        if why is not None:
            problem = f"{why} ({high_water.path_of(data)})"
            chains = verdict.chains
            if verdict.lone:  # its line is the chain's own
                chains = ((chains[0][0], dataclasses.replace(chains[0][1], problem=problem)),)
            return dataclasses.replace(verdict, chains=chains, problem=problem)
    if verdict.ok and (pinned or restored is not None):
        high_water.remember(data, verdict, dropped if restored is not None else marks,
                            restored=restored)
        if restored is not None:
            print(f"replay: the largest tree verified was replaced by the log as it now "
                  f"verifies, at your word ({' '.join(restored.split())[:200]}), recorded in "
                  f"{high_water.path_of(data)}", file=sys.stderr)
    return verdict


def _sizes(marks: dict[str, Any], verdict: DataVerdict) -> list[tuple[Any, int]]:
    """Each mark with the records its chain now holds."""
    from schemas.log_verify import LONE

    held = {(c.name or LONE): v.records for c, v in verdict.chains}
    return [(m, held.get(m.chain, 0)) for m in marks.values()]


def log_verified(provenance: dict[str, Any]) -> bool:
    """Whether the log verified (with a pinned key, or only with the key beside it: the
    records verification read are then what replay takes)."""
    from schemas.keyring import NOT_PINNED

    return bool(provenance["verified"]) or str(provenance["verification"]).startswith(
        NOT_PINNED)


def _run(data: Path, workers: int = 1, *, key: str | None = None,
         unverified: bool = False, rulesets: Path | None = None,
         restored: str | None = None, output_key: str | None = None) -> int:
    from replay.batch_decode import KeptRecords
    from replay.high_water import HighWaterError
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

    previous = signal.getsignal(signal.SIGTERM)
    try:
        # The helpers start and warm up while this process verifies the log, and are
        # dealt their tables' records as verification reads them; nothing is written
        # unless the log verified (or --unverified), and they are stopped on the way out.
        # The records verification read are replayed (the log is read once) when the log
        # verified; otherwise (--unverified) the log is read again, as far as it can be
        # (what was dealt is kept only where it is what was read again).
        with start_workers(workers, book) as pool:
            signal.signal(signal.SIGTERM, _terminated)  # after the helpers started
            kept = KeptRecords(deal=pool.deal)
            provenance = _provenance(data, key, unverified, kept, restored=restored)
            if provenance is None:
                return 1
            summary = replay(data / "log", data / "replay", progress, workers=pool,
                             provenance=provenance,
                             records=kept if log_verified(provenance) else None, book=book,
                             signer=signer)
    except LogError as exc:
        print(f"replay: the log cannot be read: {exc}. Run `python -m ingest verify`.",
              file=sys.stderr)
        _refused(data, f"the log cannot be read: {exc}")
        return 1
    except ReplayWorkerError as exc:
        print(f"replay: {exc}", file=sys.stderr)
        return 1
    except HighWaterError as exc:
        print(f"replay: REFUSED: {exc}. Nothing was written.", file=sys.stderr)
        _refused(data, str(exc))
        return 1
    except OSError as exc:  # a full disk while writing or switching the outputs
        print(f"replay: cannot write the outputs under {data / 'replay'}: "
              f"{exc.strerror or exc}{f' ({exc.filename})' if exc.filename else ''}; the "
              "previous outputs are kept as they were", file=sys.stderr)
        return 1
    except Terminated:
        print("replay: stopped (SIGTERM): its helper processes were stopped, nothing was "
              "written", file=sys.stderr)
        return 128 + signal.SIGTERM
    finally:
        signal.signal(signal.SIGTERM, previous)
    for finding in summary.findings:
        print(f"replay: finding: {finding}", file=sys.stderr)
    print(f"replay: {summary.rounds} rounds ({summary.evaluated} evaluated), "
          f"{summary.wagers} wagers, {len(summary.findings)} log findings -> {data / 'replay'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
