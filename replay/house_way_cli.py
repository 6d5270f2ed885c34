"""``python -m replay house-way check FILE``: validate a casino's house-way file
(docs/house-way.md), summarise it, show how it sets given hands, and (``--coverage``) how
many hands of a fixed sample each rule sets, which rules never apply, and that no setting
fouls.

Exit codes: 0 the file is a valid house way (and, with ``--coverage``, no setting fouled);
1 a setting fouled in the coverage run (a fault of the engine: the parser proves it cannot);
2 the file was refused (the message names file, line and rule) or a ``--hand`` is not a hand.
"""

from __future__ import annotations

import argparse
import random
import sys
from collections import Counter
from pathlib import Path

from replay.cards import DECK_53, parse_cards, render_cards
from replay.errors import ReplayError
from replay.games import pai_gow_house_way as poker_way
from replay.games import pai_gow_tiles_house_way as tiles_way
from replay.games.pai_gow_hands import is_foul
from replay.games.pai_gow_tiles_hands import four_tile_hands, set_hands
from replay.games.poker_ranks import rank_high, rank_low
from replay.house_ways import WAY_GAMES, HouseWaySpec, house_way_from_file
from replay.rulesets import Wheel
from replay.tiles import parse_tiles, render_tiles

SEED = 20261129
"""The coverage sample of poker hands: random.Random(SEED), then rng.sample(DECK_53, 7), the
sample of tests/golden/pai_gow_poker_house_way.txt."""
SAMPLE = 20_000

EPILOG = """\
examples:
  python -m replay house-way check replay/rulesets/house_ways/reference-1.3.way
  python -m replay house-way check docs/examples/house_ways/flamingo.way \\
      --hand "As Ad Kc Kd 9h 7s 2c" --hand "Jk Ah Kh Qh Th 4c 4d"
  python -m replay house-way check replay/rulesets/house_ways/pr-11.2-d.way \\
      --hand "6-6 2-4 1-3 5-6" --coverage

A hand is written in the project's notation: cards as rank and suit (As Kd Th 2c, Jk the
joker), tiles as pips, smaller first (6-6 2-4 1-3). --coverage sets 20,000 fixed random
pai gow poker hands (the golden file's sample) or all 35,960 four-tile hands. The grammar,
the vocabulary and every error are in docs/house-way.md.
"""


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m replay house-way",
        description="Check a casino's house-way file: validate it, print its rules, set hands "
        "by it.", epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="action", metavar="{check}", required=True)
    check = sub.add_parser(
        "check", help="validate a house-way file and show how it sets hands",
        description="Validate FILE (exit 2 with the file, line and rule of the first thing "
        "wrong), print its header and its rules in order, and for each --hand the setting the "
        "way prefers, the rule that chose it and every other lawful setting.",
        epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    check.add_argument("file", metavar="FILE", type=Path, help="the house-way file (.way)")
    check.add_argument("--hand", action="append", default=[], metavar="HAND",
                       help='seven cards ("As Kd Qh Jc Ts 9s 2d") or four tiles '
                       '("6-6 2-4 1-3 5-6"); may be given several times')
    check.add_argument("--coverage", action="store_true",
                       help="count the hands each rule sets over a fixed sample (every tile "
                       "hand), name rules that never apply, confirm no setting fouls")
    check.add_argument("--wheel", choices=[w.value for w in Wheel],
                       default=Wheel.SECOND_HIGHEST.value,
                       help="where A-2-3-4-5 ranks (docs/rules.md 6a.4; default %(default)s)")
    return p


def _summary(way: HouseWaySpec, file: Path) -> list[str]:
    lines = [f"house way {way.name} (game {way.game}) from {file}",
             f"  title:  {way.title}", f"  source: {way.source}"]
    if way.completions:
        lines.append(f"  completions: {', '.join(cid for cid, _ in way.completions)}")
    lines.append("rules, tried in order:")
    rules: tuple[poker_way.HouseWayRule | tiles_way.HouseWayRule, ...] = way.rules
    for number, rule in enumerate(rules, start=1):
        kind = "exception " if rule.exception else ""
        if isinstance(rule, poker_way.HouseWayRule):
            does = f"when {rule.when} -> front {' or '.join(rule.front)}"
        else:
            does = f"plays {rule.plays_words}; prefer {rule.prefer_words}"
        lines.append(f"  {number:2}. {kind}{rule.name} [{rule.clause}]: {does}")
    return lines


def _poker_hand(way: poker_way.HouseWay, text: str, wheel: Wheel) -> list[str]:
    cards = parse_cards(text)
    setting = poker_way.house_way_setting(cards, wheel=wheel, way=way)
    lines = [f"hand {render_cards(cards)}: high {render_cards(setting.high)} / low "
             f"{render_cards(setting.low)} (rule {setting.rule.name}, {setting.rule.clause})"]
    lines += [f"  also lawful: high {render_cards(h)} / low {render_cards(lo)}"
              for h, lo in setting.others]
    if not setting.others:
        lines.append("  no other lawful setting (but the same ranks in other suits)")
    return lines


def _tiles_hand(way: tiles_way.HouseWay, text: str) -> list[str]:
    tiles = parse_tiles(text)
    chosen = tiles_way.house_way_setting(tiles, way=way)
    lines = [f"hand {render_tiles(tiles)}: {chosen.setting} (rule {chosen.rule.name}, "
             f"{chosen.rule.clause})"]
    others = [s for s in tiles_way.allowed_settings(tiles, way=way)
              if (s.high_rank, s.low_rank) != (chosen.setting.high_rank,
                                                chosen.setting.low_rank)]
    lines += [f"  also lawful: {s}" for s in others]
    if not others:
        lines.append("  no other lawful setting")
    return lines


def _coverage(way: HouseWaySpec, wheel: Wheel) -> tuple[list[str], int]:
    counts: Counter[str] = Counter()
    fouls = checked = 0
    if isinstance(way, poker_way.HouseWay):
        rng = random.Random(SEED)
        total = SAMPLE
        for _ in range(SAMPLE):
            setting = poker_way.house_way_setting(rng.sample(DECK_53, 7), wheel=wheel, way=way)
            counts[setting.rule.name] += 1
            for high, low in ((setting.high, setting.low), *setting.others):
                checked += 1
                fouls += is_foul(rank_high(high, wheel=wheel), rank_low(low))
        what = f"{SAMPLE:,} hands of the fixed sample (random.Random({SEED}))"
    else:
        total = 0
        for tiles, n in four_tile_hands():
            chosen = tiles_way.house_way_setting(tiles, way=way)
            counts[chosen.rule.name] += n
            total += n
            for s in tiles_way.allowed_settings(tiles, way=way):
                checked += n
                fouls += n * set_hands(s.high, s.low).foul
        what = f"all {total:,} four-tile hands"
    lines = [f"coverage over {what}:"]
    names = [r.name for r in way.rules]
    lines += [f"  {counts[name]:7,}  {name}" for name in names]
    never = [name for name in names if not counts[name]]
    lines.append(f"  rules that never apply here: {', '.join(never) or 'none'}")
    lines.append(f"  {'no setting fouls' if not fouls else f'{fouls:,} settings FOUL'} "
                 f"({checked:,} lawful settings checked)")
    return lines, fouls


def check(file: Path, hands: list[str], *, coverage: bool, wheel: Wheel) -> int:
    try:
        way = house_way_from_file(None, file)
    except ReplayError as exc:
        print(f"house-way check: {exc}", file=sys.stderr)
        return 2
    out = _summary(way, file)
    for text in hands:
        try:
            if isinstance(way, poker_way.HouseWay):
                out += _poker_hand(way, text, wheel)
            else:
                out += _tiles_hand(way, text)
        except ReplayError as exc:
            print("\n".join(out))
            print(f"house-way check: --hand {text!r}: {exc}", file=sys.stderr)
            return 2
    fouls = 0
    if coverage:
        lines, fouls = _coverage(way, wheel)
        out += lines
    print("\n".join(out))
    return 1 if fouls else 0


def main(argv: list[str]) -> int:
    """``python -m replay house-way ARGS``; returns the exit code."""
    args = parser().parse_args(argv)
    assert args.action == "check"
    return check(args.file, args.hand, coverage=args.coverage, wheel=Wheel(args.wheel))


__all__ = ["WAY_GAMES", "check", "main", "parser"]
