"""``python -m checks``: run the SQL checks over replay's output and write the flags.

Exit status: 0 when the checks ran, whatever they found; 2 for bad arguments or missing
inputs; 1 when a check failed to run, the flags could not be written, or replay's outputs
cannot be trusted (they do not match their signed manifest, or it is unsigned or missing:
replay/outputs.py); the previous ``flags.parquet`` is then left as it was.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

from checks.runner import (
    Check,
    CheckError,
    CheckRun,
    InputError,
    load_checks,
    run_checks,
)
from checks.runner import parse_param as runner_parse_param
from schemas.log_resume import FULL_EVERY

REPO = Path(__file__).resolve().parent.parent


def parse_since(text: str) -> datetime:
    """An ISO date (midnight UTC) or datetime (UTC when it names no offset)."""
    try:
        when = datetime.fromisoformat(text.strip())
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not an ISO date or datetime (e.g. 2026-03-14 or "
            "2026-03-14T21:00:00Z)") from None
    return when.replace(tzinfo=UTC) if when.tzinfo is None else when.astimezone(UTC)


def dollars(cents: int) -> str:
    """Integer cents as dollars (no float): 12345 -> $123.45."""
    whole, rest = divmod(abs(cents), 100)
    return f"{'-' if cents < 0 else ''}${whole:,}.{rest:02d}"


def parse_param(text: str) -> tuple[str, int | float]:
    """``name=number`` (an integer or a decimal), read as a check's header reads it."""
    try:
        return runner_parse_param(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not name=number (e.g. min_rounds=500; names from --list)") from None


def _seconds(option: str, low: float, high: float) -> Callable[[str], float]:
    """A parser of ``option``'s seconds, from ``low`` to ``high``."""

    def parse(text: str) -> float:
        try:
            seconds = float(text)
        except ValueError:
            seconds = -1.0
        if not low <= seconds <= high:
            raise argparse.ArgumentTypeError(
                f"{option} takes seconds from {low:g} to {high:g}, got {text!r}")
        return seconds

    return parse


parse_full_every = _seconds("--full-every", 10, 86_400)
"""Seconds between whole verifications of the log, from 10 s to a day."""
parse_every = _seconds("--every", 0.2, 3600)
"""A positive number of seconds, at most an hour."""


HEADINGS = (("rule", "Rule checks (a breach of a rule)"),
            ("statistical", "Statistical surveillance (leads, not breaches; reported apart)"))


def catalogue_markdown() -> str:
    """The catalogue as Markdown tables, rule checks then statistical surveillance (the
    block of docs/checks.md between its catalogue markers)."""
    def cell(text: str) -> str:
        return text.replace("|", "\\|")

    out: list[str] = []
    for kind, heading in HEADINGS:
        out += [f"### {heading}", "", "| id | severity | what it flags | rule | next |",
                "|---|---|---|---|---|"]
        for c in (c for c in load_checks() if c.kind == kind):
            params = (" Parameters: " + ", ".join(f"`{n}={v}`" for n, v in c.params) + "."
                      if c.params else "")
            out.append(f"| `{c.id}` | {c.severity} | {cell(c.title)}{params} | "
                       f"{cell(c.rule)} | {cell(c.next)} |")
        out.append("")
    return "\n".join(out)


def print_catalogue(markdown: bool = False) -> None:
    if markdown:
        print(catalogue_markdown(), end="")
        return
    for kind, heading in HEADINGS:
        print(f"== {heading}\n")
        for c in (c for c in load_checks() if c.kind == kind):
            print(f"{c.id} [{c.severity}] {c.title}\n  rule: {c.rule}\n  next: {c.next}")
            if c.params:
                print("  params: " + ", ".join(f"{n}={v}" for n, v in c.params)
                      + " (change with --param NAME=VALUE)")
            if c.catches:
                print("  catches: " + ", ".join(c.catches)
                      + " (the simulator's fault kinds it answers: python -m checks.evaluate)")
            print()


def _progress(i: int, n: int, check: Check) -> None:
    """One line on a terminal, rewritten as the checks run."""
    done = 30 * i // max(n, 1)
    print(f"checks: [{'#' * done}{'.' * (30 - done)}] {i + 1}/{n} {check.id:<32}", end="\r",
          file=sys.stderr, flush=True)


def print_summary(done: CheckRun) -> None:
    rules = [s for s in done.summary if s.kind == "rule"]
    leads = [s for s in done.summary if s.kind != "rule"]
    total = sum(s.flags for s in rules)
    print(f"checks: {total} flags from {len(rules)} rule checks; money at stake: overpaid "
          f"{dollars(done.over_cents)}, underpaid {dollars(done.under_cents)} (each mispaid "
          f"amount once; the rows below count it under every check that flagged it) -> "
          f"{done.path}")
    width = max((len(s.id) for s in done.summary), default=0)
    for s in rules:
        print(f"checks:   {s.id:<{width}}  {s.severity:<8}  {s.flags:>7} flags  "
              f"over {dollars(s.over_cents):>12}  under {dollars(s.under_cents):>12}")
    if leads:
        print(f"checks: statistical surveillance, {sum(s.flags for s in leads)} leads "
              f"(outliers worth a look, not breaches of a rule):")
        for s in leads:
            print(f"checks:   {s.id:<{width}}  {s.severity:<8}  {s.flags:>7} leads")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        prog="python -m checks",
        description="Run the checks in checks/sql/ with DuckDB over replay's Parquet "
        "(DATA/replay/*.parquet) and replace DATA/checks/flags.parquet, atomically, with "
        "their flags. Exit 0 when the checks ran (whatever they found), 2 for bad arguments "
        "or missing inputs, 1 when a check failed to run (the old flags file is then kept).",
        epilog="example: python -m checks --data var/demo --since 2026-03-14 --check overpay. "
        "Live: python -m checks --data var/live --follow (replay and checks again whenever "
        "ingest appends to the log). "
        "The catalogue, the flags' columns and the statistical methods: docs/checks.md. "
        "DuckDB may use half the machine's memory; set CATWALK_CHECKS_MEMORY (e.g. 4GB) to "
        "change it.",
    )
    p.add_argument("--data", type=Path, default=None,
                   help="data directory (default $CATWALK_DATA or ./var)")
    p.add_argument("--output-key", default=None, metavar="FILE",
                   help="the key the checks sign checks/manifest.json with (default "
                   "$CATWALK_OUTPUT_KEY, else keys/outputs.key under --data, made on first use)")
    p.add_argument("--since", type=parse_since, default=None, metavar="DATE",
                   help="only rounds dealt at or after DATE (ISO date or datetime; UTC "
                   "unless it names an offset)")
    p.add_argument("--check", action="append", default=None, metavar="ID",
                   help="run only this check (repeatable; ids from --list)")
    p.add_argument("--param", action="append", type=parse_param, default=None,
                   metavar="NAME=VALUE",
                   help="override a check's parameter: a statistical check's minimum sample "
                   "or threshold, the Envy checks' Qualifying Wager minimum (repeatable; "
                   "names and defaults from --list)")
    p.add_argument("--list", action="store_true",
                   help="print the catalogue (id, severity, title, rule, what to do next), "
                   "rule checks and statistical surveillance apart")
    p.add_argument("--markdown", action="store_true",
                   help="with --list: as Markdown tables (as in docs/checks.md)")
    live = p.add_argument_group("live (while ingest runs)")
    live.add_argument("--follow", action="store_true",
                      help="keep going: whenever the log changed, run `python -m replay` and "
                      "then the checks again, so the dashboard shows new flags within seconds; "
                      "a failed pass is reported and tried again, Ctrl-C stops")
    live.add_argument("--live", action="store_true",
                      help="leave out the rounds still in play (the latest round of each table, "
                      "not ended or voided yet) until they end; --follow uses it, so a round "
                      "being dealt raises no 'not ended' or 'never settled' alarm")
    live.add_argument("--rulesets", type=Path, default=None, metavar="DIR",
                      help="with --follow: replay judges each casino by its own rulesets in "
                      "DIR (as `python -m replay --rulesets DIR`; default $CATWALK_RULESETS), "
                      "read once when the loop starts")
    live.add_argument("--every", type=parse_every, default=1.0, metavar="SECONDS",
                      help="with --follow: how often to look at the log (default 1)")
    live.add_argument("--full-every", type=parse_full_every, default=FULL_EVERY,
                      metavar="SECONDS",
                      help="with --follow: each pass verifies only the log's new segments "
                      "(those verified before are proved unchanged by their size, times and "
                      "inode); every SECONDS the whole log is verified again in a child "
                      "process, which catches what those cannot show (a bit flipped on disk), "
                      f"and a failure is refused at the next pass (default {FULL_EVERY:g}: "
                      "about 15 s of the other core at the end of an 8-hour shift)")
    args = p.parse_args(argv)
    if args.follow and (args.since or args.check or args.param or args.list):
        p.error("--follow runs the whole catalogue over the whole log: it takes no --since, "
                "--check, --param or --list")
    if args.rulesets and not args.follow:
        p.error("--rulesets is for --follow (replay judges by rulesets; the checks read what "
                "replay wrote): give it to `python -m replay --rulesets DIR`")
    try:
        if args.list:
            print_catalogue(markdown=args.markdown)
            return 0
        data = args.data or Path(os.environ.get("CATWALK_DATA") or REPO / "var")
        if args.follow:
            from checks.follow import follow
            from replay.rulesets_cli import load_book, rulesets_dir

            rulesets = rulesets_dir(args.rulesets)
            book = load_book(rulesets, "checks")
            if isinstance(book, int):
                return book
            return follow(data, every=args.every, full_every=args.full_every,
                          rulesets=rulesets, book=book)
        done = run_checks(data / "replay", data / "checks", since=args.since, live=args.live,
                          only=args.check,
                          params=dict(args.param or ()),
                          progress=_progress if sys.stderr.isatty() else None,
                          output_key=args.output_key)
        if sys.stderr.isatty():
            print(" " * 78, end="\r", file=sys.stderr)
    except InputError as exc:
        print(f"checks: {exc}", file=sys.stderr)
        return 2
    except CheckError as exc:
        print(f"checks: {exc}\nchecks: nothing was replaced", file=sys.stderr)
        return 1
    print_summary(done)
    if args.since is not None:
        print(f"checks: rounds dealt at or after {args.since.isoformat()} only")
    if args.live:
        print(f"checks: {done.in_play} rounds still in play left out until they end (--live)")
    warning = done.provenance.warning()
    if warning is None:
        print(f"checks: log verified: {done.provenance.verification}")
    else:
        print(f"checks: {'!' * 78}\nchecks: {warning}\nchecks: {'!' * 78}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
