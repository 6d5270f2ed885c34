"""``python -m replay rulesets check DIR`` and ``python -m replay rulesets list [DIR]``: a
casino's filings checked before replay judges by them, and the rulesets in force listed.

``check`` reads every file of a rulesets directory (replay/filings.py) and prints every
problem at once, each naming the file, the key and, for JSON that does not parse, the line
and column. Clean, it prints per casino and game the rulesets and their periods. ``list``
prints the shipped rulesets and, with a directory, the casinos'. Exit codes: 0 no problem;
1 problems found (each printed); 2 the command cannot run (the directory is missing or is
not a directory). Never a traceback, never a wait: see replay/filings.py for the bounds.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from replay.filings import RULESETS_ENV as ENV

if TYPE_CHECKING:
    from replay.rulebook import Rulebook

EPILOG = """\
examples:
  python -m replay rulesets check docs/examples/rulesets      check a casino's filings
  python -m replay rulesets list                              the shipped rulesets
  python -m replay rulesets list docs/examples/rulesets       and the casinos' beside them
  python -m replay --rulesets docs/examples/rulesets          replay judging by them

A rulesets directory holds one folder per casino (named by the casino id its events
carry), each holding that casino's rulesets, DIR/<casino>/<id>.json, in the JSON layout of
replay/rulesets/ with "casino": "<casino>", and the house-way files they name. A round is
judged under its casino's ruleset for its game in force on the day it was dealt; a casino
that filed none for a game is judged by the shipped one; a day between two of its filings
judges nothing (the round is not evaluated). docs/rulesets.md has the layout and the rules.

check reports, each with its file and key: a file that cannot be read (not a regular file,
a symbolic link, larger than 1 MiB, not UTF-8) or is not JSON (line and column); unknown
keys, options and paytables (those the game reads); a game Catwalk does not know; a casino
folder that does not match the ruleset's casino; an id used twice or shipped already; two
rulesets of one casino and game in force on the same days, or days between them when none
is; paytables missing a class the wager pays or naming one the game does not know; a house
way that is not shipped (or a *.way file that is not there). A table layout,
DIR/<casino>/tables/<table_id>.json, the seats from the dealer's far right, right to left,
by period: a seat listed twice, two periods of one table at once, a bad instant.

exit codes: 0 no problem, 1 problems found, 2 the command cannot run.
"""


def add_rulesets_parser(sub: Any) -> None:
    """The ``rulesets`` subcommand and its ``check`` and ``list``."""
    p = sub.add_parser(
        "rulesets", help="check a rulesets directory (casinos' filings), list rulesets",
        description="Check the rulesets a casino (or its regulator) gives Catwalk, or list "
        "the rulesets rounds are judged by.",
        epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    what = p.add_subparsers(dest="rulesets_command", metavar="{check,list}", required=True)
    check = what.add_parser(
        "check", help="check every file of DIR, every problem at once",
        description="Check every file of the rulesets directory DIR and print every "
        "problem, each naming its file and key. Exit 0 when there is none (the rulesets "
        "are listed), 1 when there are, 2 when DIR cannot be read.",
        epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    check.add_argument("directory", metavar="DIR", help="the rulesets directory")
    listing = what.add_parser(
        "list", help="the shipped rulesets, and DIR's casinos' beside them",
        description=f"List the shipped rulesets and, with DIR (default ${ENV} when set), "
        "each casino's by game with their periods.",
        epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    listing.add_argument("directory", metavar="DIR", nargs="?", default=None,
                         help=f"a rulesets directory (default ${ENV}, else none)")


def rulesets_command(args: argparse.Namespace) -> int:
    """Run ``check`` or ``list``; the exit code."""
    from replay.filings import FilingsError, read_filings
    from replay.rulesets import shipped_rulesets

    directory = args.directory
    if args.rulesets_command == "list":
        directory = directory or os.environ.get(ENV) or None
        _print_shipped(shipped_rulesets())
        if directory is None:
            return 0
    try:
        found = read_filings(directory)
    except FilingsError as exc:
        print(f"rulesets: {exc}: give the folder that holds one folder per casino",
              file=sys.stderr)
        return 2
    if found.problems:
        for problem in found.problems:
            print(_safe(str(problem)))
        count = len(found.problems)
        print(f"rulesets: {count} problem{'s' if count != 1 else ''} in {_safe(directory)}; "
              "nothing is judged by this directory until each is fixed", file=sys.stderr)
        return 1
    _print_filed(found.directory, [(f.relative, f.ruleset) for f in found.filings])
    _print_layouts(found.directory, found.layouts)
    casinos = {f.ruleset.casino for f in found.filings} | {x.casino for x in found.layouts}
    tables = len({(x.casino, x.table_id) for x in found.layouts})
    print(f"rulesets: {_safe(directory)}: {len(found.filings)} ruleset"
          f"{'s' if len(found.filings) != 1 else ''} and {tables} table layout"
          f"{'s' if tables != 1 else ''} of {len(casinos)} casino(s), no problem")
    return 0


def _safe(text: str) -> str:
    """``text`` fit for one line of a terminal (a file name may hold control characters)."""
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


def _period(ruleset: Any) -> str:
    end = f"up to {ruleset.effective_to}" if ruleset.effective_to else "with no end date"
    return f"from {ruleset.effective_from} {end}"


def _print_shipped(rulesets: Iterable[Any]) -> None:
    print("shipped (a casino without its own ruleset for a game is judged by these):")
    for r in sorted(rulesets, key=lambda r: (r.game, r.effective_from)):
        print(f"  {r.game:<16} {r.id:<32} {_period(r)}  replay/rulesets/{r.id}.json")


def _print_filed(directory: str, filed: list[tuple[str, Any]]) -> None:
    by_casino: dict[str, list[tuple[str, Any]]] = {}
    for relative, ruleset in filed:
        by_casino.setdefault(ruleset.casino, []).append((relative, ruleset))
    for casino in sorted(by_casino):
        print(f"casino {_safe(casino)} ({_safe(directory.rstrip('/'))}/{_safe(casino)}):")
        for relative, r in sorted(by_casino[casino],
                                  key=lambda x: (x[1].game, x[1].effective_from)):
            print(f"  {r.game:<16} {r.id:<32} {_period(r)}  {_safe(relative)}")


def _print_layouts(directory: str, layouts: Iterable[Any]) -> None:
    for x in sorted(layouts, key=lambda x: (x.casino, x.table_id, x.effective_from)):
        seats = " ".join(str(s) for s in x.seats_from_dealer_right)
        print(f"  table {_safe(x.casino)}/{_safe(x.table_id)}: seats from the dealer's right "
              f"{seats}, {x.period()}  {_safe(x.source.split(' ', 1)[0])}")


def rulesets_dir(given: Path | None) -> Path | None:
    """The rulesets directory to judge by: ``given`` (``--rulesets``), else
    ``$CATWALK_RULESETS`` when set and not empty, else None (the shipped rulesets)."""
    if given is not None:
        return given
    named = os.environ.get(ENV, "")
    return Path(named) if named else None


def load_book(rulesets: Path | None, command: str = "replay") -> Rulebook | int | None:
    """The rulebook of ``rulesets`` (None: the shipped rulesets alone), or 2, said on
    standard error, when the directory cannot be read or has any problem."""
    if rulesets is None:
        return None
    from replay.filings import FilingsError, FilingsRefused, load_rulebook

    try:
        return load_rulebook(rulesets)
    except FilingsRefused as exc:
        for problem in exc.problems:
            print(f"{command}: {problem}", file=sys.stderr)
        print(f"{command}: REFUSED: the rulesets directory {rulesets} has "
              f"{len(exc.problems)} problem(s) (above); nothing was done. Fix them "
              f"(`python -m replay rulesets check {rulesets}`)", file=sys.stderr)
        return 2
    except FilingsError as exc:
        print(f"{command}: {exc}; give --rulesets a folder with one folder per casino, or "
              "leave it out to judge by the shipped rulesets", file=sys.stderr)
        return 2
