"""``python -m replay round`` and ``python -m replay table``: a round, or a table's last
rounds, as a dispute needs them, from the terminal (replay/dispute.py).

``round ROUND_ID`` prints the report (replay/dispute_text.py), or with ``--html FILE``
writes it as one printable page and says where; ``--proof`` proves the round's events
against the signed checkpoint (reads the whole log). ``table TABLE_ID --last N`` prints,
oldest first, each of the table's last N rounds: its header line, its notation and its
settlement, recorded against expected.

Data that did not verify is said to be so first. Exit codes: 0 done; 1 no such round or
table (the message says how to find one), or ``--proof`` and the round could not be proved
(the report is still given, its proof says why); 2 the command cannot run (no data,
unreadable outputs, a round id at several tables, a file that cannot be written). Never a
traceback.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from replay.dispute_text import plain  # light: no pyarrow, no rules engine

ROUND_EPILOG = """\
examples:
  python -m replay round T01-000001 --data var/demo
  python -m replay round T01-000001 --data var/demo --html T01-000001.html
  python -m replay round T01-000001 --data var/demo --proof --key "$(cat regulator.pub)"
  python -m replay round R-7 --casino C02 --table T05      a round id used at several tables

The report: who banked and what each hand was, why each won or lost against the banker's
hand (the rule that decided it), the dealer's house way, every wager recorded against what
the rules require, the timeline of events with who recorded each, the log's findings, the
flags of the checks, the ruleset in force and, with --proof, the inclusion proof of every
event against the latest signed checkpoint. Data from a log that did not verify is marked
first. Exit codes: 0 done, 1 no such round (or --proof and it could not be proved), 2
cannot run.
"""

TABLE_EPILOG = """\
examples:
  python -m replay table T01 --last 10 --data var/demo
  python -m replay table T05 --casino C02 --last 3

Each round, oldest first: its header, its notation (the round on one line) and each wager
recorded against expected. Exit codes: 0 done, 1 no such table, 2 cannot run.
"""


def _data_help() -> str:
    return "data directory holding replay/ and checks/ (default $CATWALK_DATA or ./var)"


def add_round_parser(sub: Any) -> None:
    """The ``round`` subcommand's arguments."""
    p = sub.add_parser(
        "round", help="one round as a dispute needs it (text, or --html FILE)",
        description="Print one round as a dispute needs it, or write it as one "
        "self-contained printable HTML page.",
        epilog=ROUND_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("round_id", metavar="ROUND_ID", help="the round's id, e.g. T01-000001")
    p.add_argument("--data", type=Path, default=None, help=_data_help())
    p.add_argument("--html", type=Path, default=None, metavar="FILE",
                   help="write the dispute report as one printable HTML page to FILE")
    p.add_argument("--proof", action="store_true",
                   help="prove the round's events against the signed checkpoint (reads the "
                   "whole log under --data)")
    p.add_argument("--key", default=None, metavar="PUBLIC_KEY",
                   help="with --proof: the public key to check with, its text or a file "
                   "(default: keys/signing.pub under --data)")
    p.add_argument("--casino", default=None, help="the casino, when the id is used at several")
    p.add_argument("--table", default=None, metavar="TABLE_ID",
                   help="the table, when the id is used at several")


def _last(text: str) -> int:
    try:
        n = int(text)
    except ValueError:
        n = 0
    if n < 1:
        raise argparse.ArgumentTypeError(f"--last must be a whole number from 1, got {text!r}")
    return n


def add_table_parser(sub: Any) -> None:
    """The ``table`` subcommand's arguments."""
    p = sub.add_parser(
        "table", help="a table's last rounds, in the order it dealt them",
        description="Print a table's last rounds, oldest first, in the order the table "
        "dealt them (its sequence numbers).",
        epilog=TABLE_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("table_id", metavar="TABLE_ID", help="the table's id, e.g. T01")
    p.add_argument("--last", type=_last, default=10, metavar="N",
                   help="how many of its last rounds (default 10)")
    p.add_argument("--casino", default=None, help="the casino, when the id is used at several")
    p.add_argument("--data", type=Path, default=None, help=_data_help())


def _say(text: str) -> None:
    """Print to standard output whatever its encoding can show (a terminal without UTF-8
    gets escapes, never a crash)."""
    encoding = getattr(sys.stdout, "encoding", None) or "utf-8"
    sys.stdout.write(text.encode(encoding, "backslashreplace").decode(encoding))
    sys.stdout.flush()


def _error(command: str, message: str) -> None:
    print(f"replay {command}: {plain(message)}", file=sys.stderr)


def round_command(data: Path, round_id: str, *, html: Path | None, proof: bool,
                  key: str | None, casino: str | None, table_id: str | None) -> int:
    """``python -m replay round``: see the module docstring."""
    from replay.dispute import (
        ReportError,
        UntrustedOutputs,
        report_html,
        report_text,
        round_report,
    )

    try:
        report = round_report(data, round_id, with_proof=proof, key=key, casino=casino,
                              table_id=table_id, check_files=True)
    except UntrustedOutputs as exc:
        _error("round", str(exc))
        return 1
    except ReportError as exc:
        _error("round", str(exc))
        return 2
    if report is None:
        where = "".join(f" {w} {v}" for w, v in (("at casino", casino), ("table", table_id))
                        if v)
        _error("round", f"no round {round_id}{where} in {data / 'replay'}: check the id; "
               f"`python -m replay table TABLE_ID --last 10 --data {data}` lists a table's "
               "rounds")
        return 1
    unproved = 1 if report.proof is not None and not report.proof.verified else 0
    if html is None:
        _say(report_text(report))
        return unproved
    try:
        html.write_text(report_html(report), encoding="utf-8")
    except OSError as exc:
        _error("round", f"cannot write {html}: {exc.strerror or exc}")
        return 2
    if not report.verified:
        _say(f"WARNING: {plain(report.provenance)}\n")
    _say(f"dispute report of round {plain(report.round_id)} (casino {plain(report.casino)} "
         f"table {plain(report.table_id)}) written to {html}"
         + (f"; proof: {plain(report.proof.line)}" if report.proof else "") + "\n")
    return unproved


def table_command(data: Path, table_id: str, *, last: int, casino: str | None) -> int:
    """``python -m replay table``: see the module docstring."""
    from replay.dispute import ReportError, UntrustedOutputs, table_ids, table_rounds
    from replay.dispute_text import header, settlement

    try:
        reports = table_rounds(data, table_id, last=last, casino=casino, check_files=True)
        known = table_ids(data, casino) if not reports else []
    except UntrustedOutputs as exc:
        _error("table", str(exc))
        return 1
    except ReportError as exc:
        _error("table", str(exc))
        return 2
    if not reports:
        shown = ", ".join(known[:20]) + (f" and {len(known) - 20} more" if len(known) > 20
                                         else "")
        _error("table", f"no rounds at table {table_id}"
               + (f" of casino {casino}" if casino else "")
               + f" in {data / 'replay'}; the tables are: {shown or 'none'}")
        return 1
    out = []
    if not reports[0].verified:
        out.append(f"WARNING: {plain(reports[0].provenance)}")
    casino_of = reports[0].casino
    out.append(f"the last {len(reports)} round(s) of casino {plain(casino_of)} table "
               f"{plain(table_id)}, oldest first:")
    for n, r in enumerate(reports, start=1):
        out += ["", f"{n}. {header(r)}", f"   {plain(r.notation or '(no notation)')}"]
        out += [f"   {settlement(w)}" for w in r.wagers] or ["   no wager recorded"]
        flagged = sorted({str(f.get("check_id")) for f in r.flags})
        if flagged:
            out.append(f"   flags: {plain(', '.join(flagged))}")
        if r.problems:
            out.append(f"   problems: {plain('; '.join(r.problems))}")
    _say("\n".join(out) + "\n")
    return 0
