"""Golden file: the shipped pai gow poker house way over a large fixed sample of hands (the
rules engine's golden file of the house way; docs/rules.md 1.3 and 7.5, completed in
replay/games/pai_gow_house_way.py).

``tests/golden/pai_gow_poker_house_way.txt`` holds a short ``#`` header and then one hand per
line, in a form whose diff shows exactly which hands the house way sets differently::

    <7 dealt cards sorted by DECK_53 index> -> <high 5> / <low 2> (<rule name>)

The sample: ``random.Random(20261129)``, then ``rng.sample(DECK_53, 7)`` 20,000 times (the
seed is the date the file was first pinned; Random's seeding and ``sample`` are stable across
CPython versions). The high and low hands are written in the house way's canonical order.

To rewrite the file after a deliberate change to the house way, then review its diff::

    CATWALK_UPDATE_GOLDEN=1 .venv/bin/python -m pytest -q tests/test_golden_house_way.py
    # or: .venv/bin/python -m tests.test_golden_house_way

Whatever the file says is checked three more ways, so that it is not just what the code says:
every line uses exactly its dealt cards and never fouls; every line's rule and setting are
re-derived by a deliberately simple, independent reading of the written house way
(:func:`written_house_way` below, no code shared with the engine beyond card notation); and
the lines in :data:`HAND_CHECKED` were checked by hand against the written rules.
"""

from __future__ import annotations

import os
import random
import sys
from collections import Counter
from itertools import combinations
from pathlib import Path

import pytest

from replay.cards import DECK_53, parse_cards, render_cards
from replay.games.pai_gow_poker import HOUSE_WAY_REFERENCE_1_3, house_way_setting, is_foul

GOLDEN = Path(__file__).resolve().parent / "golden" / "pai_gow_poker_house_way.txt"
SEED = 20261129
SAMPLE = 20_000
UPDATE_ENV = "CATWALK_UPDATE_GOLDEN"

HEADER = (
    "# The shipped pai gow poker house way (reference-1.3: docs/rules.md 1.3 completed, see\n"
    "# replay/games/pai_gow_house_way.py HOUSE_WAY_REFERENCE_1_3) over a fixed sample of hands.\n"
    f"# Sample: random.Random({SEED}), then rng.sample(DECK_53, 7) {SAMPLE} times.\n"
    "# Line: <7 dealt cards sorted by DECK_53 index> -> <high 5> / <low 2> (<rule name>)\n"
    "# Rewrite: CATWALK_UPDATE_GOLDEN=1 .venv/bin/python -m pytest tests/test_golden_house_way.py\n"
)


def golden_lines() -> list[str]:
    """The golden file's lines as the house way sets the sample today."""
    rng = random.Random(SEED)
    lines = HEADER.splitlines()
    for _ in range(SAMPLE):
        dealt = sorted(rng.sample(DECK_53, 7), key=lambda card: card.index)
        setting = house_way_setting(dealt)
        lines.append(f"{render_cards(dealt)} -> {render_cards(setting.high)} / "
                     f"{render_cards(setting.low)} ({setting.rule.name})")
    return lines


def write_golden() -> None:
    GOLDEN.parent.mkdir(parents=True, exist_ok=True)
    GOLDEN.write_text("\n".join(golden_lines()) + "\n", encoding="utf-8")


def pinned_lines() -> list[str]:
    return GOLDEN.read_text(encoding="utf-8").splitlines()


def pinned_hands() -> list[tuple[list[str], list[str], list[str], str]]:
    """(dealt, high, low, rule) of every pinned line, as card tokens."""
    hands = []
    for line in pinned_lines():
        if line.startswith("#"):
            continue
        dealt, _, rest = line.partition(" -> ")
        setting, _, rule = rest.rpartition(" (")
        high, _, low = setting.partition(" / ")
        hands.append((dealt.split(), high.split(), low.split(), rule.removesuffix(")")))
    return hands


def test_golden_file_is_what_the_house_way_sets_today() -> None:
    if os.environ.get(UPDATE_ENV) == "1":
        write_golden()
    expected, pinned = golden_lines(), pinned_lines()
    differing = [
        f"line {number}:\n  pinned: {old}\n  now:    {new}"
        for number, (old, new) in enumerate(zip(pinned, expected, strict=False), start=1)
        if old != new
    ]
    if len(pinned) != len(expected):
        differing.append(f"the file has {len(pinned)} lines, the house way gives {len(expected)}")
    assert not differing, (
        f"{len(differing)} lines differ from {GOLDEN.name}; first ones:\n"
        + "\n".join(differing[:5])
        + f"\nIf the house way changed on purpose: {UPDATE_ENV}=1 and review the diff."
    )


def test_every_golden_line_uses_exactly_the_dealt_cards_and_never_fouls() -> None:
    rules = {rule.name for rule in HOUSE_WAY_REFERENCE_1_3.rules}
    hands = pinned_hands()
    assert len(hands) == SAMPLE
    for dealt, high, low, rule in hands:
        cards = parse_cards(" ".join(dealt))
        assert len(set(cards)) == 7, dealt
        assert [c.index for c in cards] == sorted(c.index for c in cards), dealt
        assert len(high) == 5 and len(low) == 2, (dealt, high, low)
        assert Counter(high + low) == Counter(dealt), (dealt, high, low)
        assert not is_foul(parse_cards(" ".join(high)), parse_cards(" ".join(low))), (dealt,)
        assert rule in rules, rule


def test_the_sample_reaches_every_rule_but_five_aces() -> None:
    # five aces (4 aces and the joker) comes about once in 480,000 seven-card hands; its rule
    # has its own case in tests/test_pai_gow_poker.py
    seen = Counter(rule for *_, rule in pinned_hands())
    assert set(seen) == {rule.name for rule in HOUSE_WAY_REFERENCE_1_3.rules} - {"five_aces"}


# ---------------------------------------------------------------------------------------
# A deliberately simple reading of the written house way (docs/rules.md 1.3 and the
# completions C1-C8 in the docstring of HOUSE_WAY_REFERENCE_1_3), on card tokens only
# ---------------------------------------------------------------------------------------

VALUE = {ch: v for v, ch in enumerate("23456789TJQKA", start=2)}
ACE = 14


def value(token: str) -> int:
    """A card's rank; the joker joins the aces when grouping (C6)."""
    return ACE if token == "Jk" else VALUE[token[0]]


def straight_or_flush(five: tuple[str, ...] | list[str]) -> bool:
    """Five cards that are a straight or a flush (or both), the joker completing either."""
    natural = [t for t in five if t != "Jk"]
    if len({t[1] for t in natural}) == 1:
        return True
    ranks = [VALUE[t[0]] for t in natural]
    if len(set(ranks)) != len(ranks):
        return False
    for bottom in range(1, 11):  # windows A-2-3-4-5 (the ace as 1) up to T-J-Q-K-A
        window = set(range(bottom, bottom + 5))
        if all(r in window or (r == ACE and 1 in window) for r in ranks):
            return True
    return False


def low_key(two: tuple[str, ...] | list[str]) -> tuple[bool, int, int]:
    """A 2-card hand's order (1.1): pairs above non-pairs, then highest card first."""
    hi, lo = sorted((value(t) for t in two), reverse=True)
    return (hi == lo, hi, lo)


def straight_lows(seven: list[str]) -> list[tuple[bool, int, int]]:
    """The 2-card hands that leave a straight or flush behind, best first."""
    return sorted((low_key(low) for low in combinations(seven, 2)
                   if straight_or_flush([t for t in seven if t not in low])), reverse=True)


def two_pair_keeps_pairs_together(high_pair: int, low_pair: int, singles: list[int]) -> bool:
    """1.3 two pair: True when the pairs stay behind and two singles go in front."""
    if high_pair == ACE:
        return False                                  # (a) aces and any pair: split
    if 11 <= high_pair <= 13 and low_pair >= 6:
        return False                                  # (b) face pair with 6s or higher: split
    if high_pair <= 6:
        return True                                   # (c) both 6s or lower: never split
    return singles[0] == ACE                          # (d) split unless an ace can go in front


def written_house_way(seven: list[str]) -> tuple[str, list[int] | None]:
    """(rule name, the low hand's card values, highest first) as the written house way sets
    ``seven``; the values are None for the straight rules, whose low hand is checked as the
    best one that leaves a straight or flush behind."""
    counts = Counter(value(t) for t in seven)
    by_size = {n: sorted((v for v, k in counts.items() if k == n), reverse=True)
               for n in range(1, 6)}
    singles, pairs, trips, quads = by_size[1], by_size[2], by_size[3], by_size[4]
    if by_size[5]:
        return "five_aces", [ACE, ACE]                                      # C1
    if quads:
        if pairs or trips:
            return "four_of_a_kind_with_pair", [max(pairs + trips)] * 2     # C2
        if quads[0] <= 6:
            return "four_of_a_kind_six_or_lower", singles[:2]
        if 7 <= quads[0] <= 11 and singles[0] == ACE:
            return "four_of_a_kind_seven_to_jack_with_ace", singles[:2]
        return "four_of_a_kind_split", [quads[0]] * 2
    if len(trips) == 2:
        return "two_three_of_a_kind", [trips[0]] * 2
    if trips and pairs:
        return "full_house", [pairs[0]] * 2                                 # C3
    lows = straight_lows(seven)
    if lows:                                                                # 1.3 Straights, C4
        if lows[0][0]:
            return "straight_pair_in_front", None
        if len(pairs) == 3:           # C5: with the joker, three pair and a flush or straight
            return "straight_two_pair_split", [pairs[0]] * 2
        if len(pairs) == 2 and not two_pair_keeps_pairs_together(pairs[0], pairs[1], singles):
            return "straight_two_pair_split", [pairs[1]] * 2                # C5
        return "straight", None
    if len(pairs) == 3:
        return "three_pair", [pairs[0]] * 2
    if len(pairs) == 2:
        high_pair, low_pair = pairs
        together = two_pair_keeps_pairs_together(high_pair, low_pair, singles)
        if high_pair == ACE:
            name = "two_pair_aces"
        elif 11 <= high_pair <= 13 and low_pair >= 6:
            name = "two_pair_face_and_six_or_higher"
        elif high_pair <= 6:
            name = "two_pair_six_or_lower"
        else:
            name = "two_pair_with_ace" if together else "two_pair_split"
        return name, singles[:2] if together else [low_pair] * 2           # C8: lower in front
    if trips:
        if trips[0] == ACE:
            return "three_aces", [ACE, singles[0]]
        return "three_of_a_kind", singles[:2]
    if pairs:
        return "one_pair", singles[:2]
    return "no_pair", singles[1:3]


def test_every_golden_line_follows_the_written_rule_it_names() -> None:
    wrong = []
    for dealt, high, low, rule in pinned_hands():
        name, low_values = written_house_way(dealt)
        got = sorted((value(t) for t in low), reverse=True)
        if low_values is None:
            ok = straight_or_flush(high) and low_key(low) == straight_lows(dealt)[0]
        else:
            ok = got == sorted(low_values, reverse=True)
        if name != rule or not ok:
            wrong.append(f"{' '.join(dealt)}: file {rule} {low}, written {name} {low_values}")
    assert not wrong, f"{len(wrong)} lines differ from the written house way:\n" + "\n".join(
        wrong[:10])


def test_the_written_reading_agrees_with_the_house_way_cases_of_the_rule_tests() -> None:
    # the simple reading is itself checked on the hand-worked cases of test_pai_gow_poker.py
    from tests.test_pai_gow_poker import HOUSE_WAY_CASES

    for rule, cards, _high, expected_low in HOUSE_WAY_CASES:
        name, low_values = written_house_way(cards.split())
        assert name == rule, cards
        if low_values is not None:
            assert sorted(low_values, reverse=True) == sorted(
                (value(t) for t in expected_low.split()), reverse=True), cards


# Lines checked by hand against the written house way (docs/rules.md 1.3 and C1-C8): at
# least one of every rule in the sample, and one of every rule with the joker; the reasoning
# is beside each.
HAND_CHECKED: list[tuple[str, str]] = [
    ('3c 4c Qc 7d Ad 3h 6s -> 7d 6s 4c 3h 3c / Ad Qc (one_pair)',
     'one pair (3s): the pair behind, the next two highest (A-Q) in front'),
    ('3c Qc Ac 8d 3s 9s Qs -> Qs Qc 8d 3s 3c / Ac 9s (two_pair_with_ace)',
     'two pair Q+3 with an ace: not (a)-(c), so the ace and the next highest (9) in '
     'front'),
    ('5c 7c Jc 4d Kd 6h 9h -> Kd 7c 6h 5c 4d / Jc 9h (no_pair)',
     'no pair, no straight (K J 9 7 6 5 4 lacks an 8 or 3): K behind, J-9 in front'),
    ('5c 4d 4h Qh Ah 2s Jk -> Jk Ah Qh 5c 2s / 4h 4d (straight_two_pair_split)',
     'joker pairs the ace; aces and 4s (two pair, aces: split) with a wheel: C5 plays '
     'the pair rule, 4-4 in front'),
    ('2c 3c 5c 4d Ad 7h 8s -> Ad 5c 4d 3c 2c / 8s 7h (straight)',
     'wheel A-2-3-4-5 kept behind; 8-7 in front'),
    ('2c 3h 7h 8h Jh Qh 4s -> Qh Jh 8h 7h 3h / 4s 2c (straight)',
     'five hearts: the flush behind, the other two in front'),
    ('3c 4c 2d 7d Qh Kh Ah -> Ah 7d 4c 3c 2d / Kh Qh (no_pair)',
     'no pair, no wheel (no 5): A behind, K-Q in front'),
    ('2c 5c 6d 6s 9s As Jk -> Jk As 9s 5c 2c / 6s 6d (two_pair_aces)',
     'joker pairs the ace; aces and 6s: always split, 6-6 in front'),
    ('Ac 2d 3d 8d 3h 5h 5s -> 5s 5h 3h 3d 2d / Ac 8d (two_pair_six_or_lower)',
     'two pair 5s and 3s, both 6 or lower: never split, A-8 in front'),
    ('2c 9c 2d 5d 2h 4s Ts -> 5d 4s 2h 2d 2c / Ts 9c (three_of_a_kind)',
     'three 2s: kept behind, T-9 in front'),
    ('Kc 3d 4d Jd 8h 3s Ks -> Ks Kc Jd 8h 4d / 3s 3d (two_pair_split)',
     'two pair K+3, no ace: split, the lower pair (3-3) in front (C8)'),
    ('Tc Qc 6d Ad 3h 6s Ts -> Ts Tc 6s 6d 3h / Ad Qc (two_pair_with_ace)',
     'two pair T+6 (ten is not a face card) with an ace: A-Q in front'),
    ('Kc 5d 6d Td 3h 5h Jk -> Td 6d 5h 5d 3h / Jk Kc (one_pair)',
     'one pair of 5s; the joker is an ace: joker-K in front'),
    ('2c Kc Ad 4h Ah Ks As -> As Ah Ad 4h 2c / Ks Kc (full_house)',
     'full house aces over kings: the pair (K-K) in front (C3)'),
    ('2c Qc 3d 4d 7d 4h Qs -> Qs Qc 7d 3d 2c / 4h 4d (two_pair_split)',
     'two pair Q+4 (face with a pair below 6), no ace: split, 4-4 in front'),
    ('4c 3d Ad Ah 5s 9s As -> As Ah 5s 4c 3d / Ad 9s (three_aces)',
     'three aces: break them, a pair behind, the third ace and the 9 in front'),
    ('Tc Ac 6d Kd 6h Jh As -> As Ac Kd Jh Tc / 6h 6d (two_pair_aces)',
     'two pair aces and 6s: split, 6-6 in front'),
    ('3c 3d 4s 5s 6s Ts Js -> Js Ts 6s 5s 4s / 3d 3c (straight_pair_in_front)',
     'spade flush with a pair of 3s off it: the pair in front, the flush behind'),
    ('Qc Kc 4d 8d 9d Qd 8h -> Kc Qd Qc 9d 4d / 8h 8d (two_pair_face_and_six_or_higher)',
     'face pair (Q) with 8s: always split, 8-8 in front'),
    ('3c 8c Jc Ac 3h 3s As -> Jc 8c 3s 3h 3c / As Ac (full_house)',
     'full house 3s over aces: the pair of aces in front, the trips behind'),
    ('3d 6d 7d Jd 6h 2s Jk -> Jk Jd 7d 6d 3d / 6h 2s (straight)',
     'diamond flush with the joker; its pair of 6s cannot go in front without breaking'
     ' it: 6-2 in front'),
    ('4c 6d Kd 6h 7h Kh 3s -> Kh Kd 7h 4c 3s / 6h 6d (two_pair_face_and_six_or_higher)',
     'face pair (K) with 6s: always split, 6-6 in front'),
    ('2c 3c Kh 2s 3s 7s 9s -> 7s 3s 3c 2s 2c / Kh 9s (two_pair_six_or_lower)',
     'two pair 3s and 2s: never split, K-9 in front'),
    ('8c Qc 5d 8d 4h 7s 8s -> 8s 8d 8c 5d 4h / Qc 7s (three_of_a_kind)',
     'three 8s (4 5 7 8 is no straight): Q-7 in front'),
    ('Jc Ac Ad 2s 5s Js Jk -> Jk Ad Ac 5s 2s / Js Jc (full_house)',
     'the joker makes three aces; with a pair of jacks, a full house: J-J in front'),
    ('2c 4c 9c 2d 2h 4h 2s -> 9c 2s 2h 2d 2c / 4h 4c (four_of_a_kind_with_pair)',
     'four 2s with a pair of 4s: the quads behind, the pair in front (C2)'),
    ('5c 6c 8d 5h 6s 8s Js -> Js 6s 6c 5h 5c / 8s 8d (three_pair)',
     'three pair 8s, 6s, 5s: the highest pair in front'),
    ('5c Kd 2h 2s 5s 6s Ks -> 6s 5s 5c 2s 2h / Ks Kd (three_pair)',
     'three pair K, 5, 2: K-K in front'),
    ('3c 6c 6d Th 6s Ks Jk -> Th 6s 6d 6c 3c / Jk Ks (three_of_a_kind)',
     'three 6s; the joker is an ace: joker-K in front'),
    ('Tc 2d 3d Jd 5s 7s Jk -> Jk 7s 5s 3d 2d / Jd Tc (no_pair)',
     'no pair (the joker an ace, no straight): the joker behind, J-T in front'),
    ('4c 8c 6d 2h 4h 2s Jk -> 6d 4h 4c 2s 2h / Jk 8c (two_pair_six_or_lower)',
     'two pair 4s and 2s: never split, the joker (ace) and the 8 in front'),
    ('2c 8c 2d 7d Qd 8s Jk -> 8s 8c 7d 2d 2c / Jk Qd (two_pair_with_ace)',
     'two pair 8s and 2s with the joker as an ace: joker-Q in front'),
    ('9c Tc Ac 9h 8s Ts Jk -> Ts Tc 9h 9c 8s / Jk Ac (three_pair)',
     'the joker pairs the ace: three pair A, T, 9: A-A in front'),
    ('6c 8c Tc Qc Ac 8s Jk -> Jk Ac Qc Tc 6c / 8s 8c (straight_pair_in_front)',
     'club flush with the joker and a pair of 8s off it: 8-8 in front, the flush '
     'behind'),
    ('Qc Kc Ac 2h 7h Ah As -> As Ah Qc 7h 2h / Ac Kc (three_aces)',
     'three aces: a pair behind, the third ace and the king in front'),
    ('Kc 3d 4d 9h 9s Ks Jk -> Jk Ks Kc 4d 3d / 9s 9h (two_pair_face_and_six_or_higher)',
     'face pair (K) with 9s: split, 9-9 in front'),
    ('6d 5h 6h 7h Ah 4s Jk -> Jk Ah 7h 5h 4s / 6h 6d (straight_two_pair_split)',
     'joker pairs the ace; with 6s that is aces-and-a-pair (split) beside a straight '
     'and a flush: C5, 6-6 in front'),
    ('Kc Ac Ad 4h Qh 8s Jk -> Jk Ad Qh 8s 4h / Ac Kc (three_aces)',
     'the joker makes three aces: the joker and an ace behind, ace-king in front'),
    ('Kc Kd Th Kh 2s 8s Ks -> Ks Kh Th 8s 2s / Kd Kc (four_of_a_kind_split)',
     'four kings: queens to aces always split, two kings in each hand (C2)'),
    ('4c 6c Tc 4d 6d 4s 6s -> Tc 6s 4s 4d 4c / 6d 6c (two_three_of_a_kind)',
     'trips 6s and 4s: the lower trips behind, a pair of 6s in front'),
    ('5c 6c 6d 5h 6h 5s Qs -> Qs 6h 5s 5h 5c / 6d 6c (two_three_of_a_kind)',
     'trips 6s and 5s: a pair of 6s in front, 5s behind with the third 6'),
    ('Tc Qc 5d Qd Qh 5s Qs -> Qs Qh Qd Qc Tc / 5s 5d (four_of_a_kind_with_pair)',
     'four queens with a pair of 5s: the quads behind, 5-5 in front'),
    ('2c 4c Jc Kc 2d 2h 2s -> 4c 2s 2h 2d 2c / Kc Jc (four_of_a_kind_six_or_lower)',
     'four 2s: never split, K-J in front'),
    ('4c 4d 9d 4h 4s 7s Jk -> 7s 4s 4h 4d 4c / Jk 9d (four_of_a_kind_six_or_lower)',
     'four 4s: never split, the joker (an ace) and the 9 in front'),
    ('Ac 9d Ad 2h Ah Qs As -> As Ah Qs 9d 2h / Ad Ac (four_of_a_kind_split)',
     'four aces: split, a pair of aces in each hand'),
    ('6c Ac 6d Ad 6h Ah Jk -> Jk Ah Ad Ac 6h / 6d 6c (four_of_a_kind_with_pair)',
     'the joker makes four aces, beside three 6s: the quads behind, 6-6 in front'),
    ('3c Ac Kd Ad 8h As Jk -> Jk As Kd 8h 3c / Ad Ac (four_of_a_kind_split)',
     'the joker makes four aces: split, a natural pair of aces in front'),
    ('3c 4c Jc Jd Jh Ah Js -> Js Jh Jd Jc 3c / Ah 4c (four_of_a_kind_seven_to_jack_with_ace)',
     'four jacks with an ace: kept, A-4 in front'),
    ('Jd Ad Jh 7s Js As Jk -> Jk Js Jh Jd 7s / As Ad (two_three_of_a_kind)',
     'three jacks and three aces (the joker one): jacks behind with an ace, A-A in '
     'front; the joker is no jack'),
]


@pytest.mark.parametrize(("line", "why"), HAND_CHECKED)
def test_hand_checked_lines_are_pinned(line: str, why: str) -> None:
    assert line in pinned_lines(), why


if __name__ == "__main__":
    if sys.argv[1:] not in ([], ["--update"]):
        sys.exit("usage: python -m tests.test_golden_house_way [--update]")
    write_golden()
    print(f"wrote {GOLDEN} ({SAMPLE} hands); review it with git diff")
