"""Synthetic replay output at scale, for timing the check catalogue.

Usage: .venv/bin/python bench/synthetic_replay.py [--rounds 10000000] [--out DIR] [--seed 1]
       [--fault-rate 0.01] [--chunk 1000000]

Writes ``OUT/replay/`` as ``python -m replay`` would: the eight Parquet files (the schemas
are replay's own, ``replay.run.TABLES``; the same writer options: zstd, dictionary, statistics,
row groups of at most 1,048,576 rows; rows in (casino, table, round) order) and a signed
``manifest.json`` with each file's SHA-256 and size (and ``manifest.sig``, by the outputs' key
``OUT/keys/outputs.key``), so that the checks verify the files as they do in production
(the manifest says the data were not verified: there is no log). No log, no fold, no rules
engine: the rows are drawn with numpy, a chunk of rounds at a time (bounded
memory), deterministic for a seed.

The shape, per round: 2 casinos of 100 tables each (one game per table, the four games in
turn), 3 dealers per table (600), a round every 90 s or so, 3 to 6 seats occupied (7 at
Caribbean stud), one hand per seat plus the dealer's, 1 to 3 wagers a seat (main or ante
always; Fortune, Progressive, Ace High by chance; raise when the seat raises), the dealer's own
wager when a player banks (10% of pai gow poker and tiles rounds), Envy rows in 2% of the
pai gow poker and Face Up rounds, a jackpot row per progressive win, a few hundred log
findings, a round notation much like replay's, and a timeline of each round's events (about
33 a round: wagers placed, cards dealt, hands set and shown, acts, settlements, Envy Bonuses)
in its game's lawful order (:func:`timeline`). Faults at --fault-rate, roughly the share of
rounds with one: mispays, unsettled wagers, commissions charged on a push or loss or of the
wrong amount, dealer hands off the house way, rounds not evaluated or irregular, a few
percent of the Envy, banker and jackpot rows wrong, and events of the order of play out of
their place; so every shipped check of these returns rows. The timeline is drawn with its
own generator: the other files are those of format 3 (no timeline), row for row.

``OUT/synthetic.json`` records the parameters; a later run with the same ones reuses the data.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from replay.outputs import output_signer, write_signed  # noqa: E402
from replay.run import (  # noqa: E402
    BANKERS,
    ENVY,
    FINDINGS,
    HANDS,
    JACKPOTS,
    MANIFEST_FORMAT,
    ROUNDS,
    TABLES,
    WAGERS,
)

FORMAT = 4
"""Bump when the rows drawn change, so that cached data of an older shape are not reused."""
ROW_GROUP = 1 << 20
"""pyarrow's default, which replay's ``pq.write_table`` uses."""
WRITE_OPTIONS = {"compression": "zstd", "use_dictionary": True, "write_statistics": True}
"""replay.parallel.write_parquet's options."""

GAMES = ("pai_gow_poker", "face_up_pai_gow", "pai_gow_tiles", "caribbean_stud")
PGP, FACE_UP, TILES, STUD = range(4)
RULESETS = ("pai_gow_poker-classic-v1", "face_up_pai_gow-pa688a-v1", "pai_gow_tiles-pr-v1",
            "caribbean_stud-standard-v1")
MAX_SEATS = np.array([6, 6, 6, 7])
SLOTS = 8
"""Slot 0 is the dealer, slots 1-7 the seats."""

WAGER_NAMES = ("ace_high", "ante", "fortune", "main", "progressive", "raise")
ACE_HIGH, ANTE, FORTUNE, MAIN, PROGRESSIVE, RAISE = range(6)
GAME_WAGERS = np.array([
    [FORTUNE, MAIN, PROGRESSIVE, -1],
    [ACE_HIGH, FORTUNE, MAIN, PROGRESSIVE],
    [MAIN, -1, -1, -1],
    [ANTE, PROGRESSIVE, RAISE, -1],
])
"""Each game's wagers in name order (replay writes a seat's wagers sorted by name)."""
WAGER_ODDS = np.array([
    [0.30, 0.96, 0.25, 0.0],
    [0.25, 0.30, 0.97, 0.25],
    [1.0, 0.0, 0.0, 0.0],
    [1.0, 0.45, 0.0, 0.0],  # raise: when the seat raises
], dtype=np.float32)
MAIN_SLOT = np.array([1, 2, 0, 0])
OUTCOMES = ("win", "loss", "push", "void")
WIN, LOSS, PUSH, VOID = range(4)
POSITIONS = ("dealer", "banker", *(f"seat {s}" for s in range(1, 8)))
ACTIONS = ("raise", "fold", "concede", "withdraw")
JACKPOT_HANDS = ("full_house", "four_of_a_kind", "straight_flush", "royal_flush", "five_aces")
TS = pa.timestamp("us", tz="UTC")
START_US = 1_788_256_800_000_000  # 2026-09-01T10:00:00Z

NOT_EVALUATED = (
    ("seat {s} has no 'cards'", "not_judgeable"),
    ("the log holds no RoundStarted for the round", "never_started"),
    ("seat {s} placed fortune 2500 that the judgement does not cover", "not_judgeable"),
    ("the round started but the log holds no RoundEnded", "not_ended"),
)
IRREGULAR = (
    ("seat {s} placed main 3000 after the cards were dealt (table_seq 498): past-posting",
     "past_posting"),
    ("seat {s} dealt twice (table_seq 1207)", "dealt_twice"),
    ("seat {s} set its hand after it was exposed (table_seq 77)", "set_after_exposed"),
    ("wager main of seat {s} settled twice (table_seq 2210)", "settled_twice"),
    ("round voided without a reason", "void_without_reason"),
)


@dataclass(frozen=True)
class Params:
    rounds: int = 10_000_000
    seed: int = 1
    fault_rate: float = 0.01
    chunk: int = 1_000_000
    casinos: int = 2
    tables: int = 200
    dealers_per_table: int = 3
    format: int = FORMAT


# Strings built from bytes, vectorised ---------------------------------------------------

def fixed_strings(mat: np.ndarray) -> pa.Array:
    """Rows of a (n, width) uint8 matrix as a string array, without a Python loop."""
    n, width = mat.shape
    assert n * width < 2**31
    offsets = np.arange(0, (n + 1) * width, width, dtype=np.int32)
    return pa.StringArray.from_buffers(n, pa.py_buffer(offsets),
                                       pa.py_buffer(np.ascontiguousarray(mat, np.uint8)))


def digits(mat: np.ndarray, col: int, values: np.ndarray, width: int) -> None:
    """Write ``values`` zero-padded in ``width`` decimal digits at column ``col``."""
    v = values.astype(np.int64)
    for k in range(width - 1, -1, -1):
        mat[:, col + k] = 48 + v % 10
        v //= 10


def vocab(words: tuple[str, ...], index: np.ndarray, mask: np.ndarray | None = None) -> pa.Array:
    """``words[index]`` as a string array (null where ``mask``)."""
    idx = pa.array(index.astype(np.int32), mask=mask)
    return pc.take(pa.array(words, pa.string()), idx)


def join_groups(segments: pa.Array, starts: np.ndarray) -> pa.Array:
    """Concatenate contiguous groups of ``segments``: group g is segments[starts[g]:
    starts[g+1]] (``starts`` holds one more entry than there are groups). Zero copy."""
    segments = pa.concat_arrays([segments]) if segments.offset else segments
    offsets = np.frombuffer(segments.buffers()[1], np.int32)[:len(segments) + 1]
    return pa.StringArray.from_buffers(len(starts) - 1, pa.py_buffer(offsets[starts].copy()),
                                       segments.buffers()[2])


def join(*parts: pa.Array | str) -> pa.Array:
    return pc.binary_join_element_wise(*parts, "")


def ints(values: np.ndarray, kind: pa.DataType, mask: np.ndarray | None = None) -> pa.Array:
    return pa.array(values.astype(kind.to_pandas_dtype()), type=kind, mask=mask)


CARD_CODES = np.array([[ord(r), ord(s)] for s in "cdhs" for r in "23456789TJQKA"]
                      + [[ord("J"), ord("k")]], np.uint8)
TILE_PIPS = [(a, b) for a in range(1, 7) for b in range(a, 7)]
TILE_CODES = np.array([[48 + a, ord("-"), 48 + b] for a, b in TILE_PIPS], np.uint8)
TILE_DECK = np.array(list(range(len(TILE_PIPS))) + [TILE_PIPS.index(x) for x in (
    (6, 6), (1, 1), (4, 4), (1, 3), (5, 5), (3, 3), (2, 2), (5, 6), (4, 6), (1, 6), (1, 5))])
"""The 32 tiles of the set: 21 pip pairs, 11 of them twice."""


def card_text(cards: np.ndarray, codes: np.ndarray) -> np.ndarray:
    """(n, k) codes as (n, k*(w+1)-1) bytes: codes separated by spaces."""
    n, k = cards.shape
    w = codes.shape[1]
    mat = np.full((n, k * (w + 1) - 1), ord(" "), np.uint8)
    for j in range(k):
        mat[:, j * (w + 1):j * (w + 1) + w] = codes[cards[:, j]]
    return mat


RANK_WORDS = ("two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "jack",
              "queen", "king", "ace")
RANK_LETTERS = "23456789TJQKA"


def high_rank_pool() -> tuple[str, ...]:
    pool = []
    for a in range(13):
        for b in range(13):
            if a == b:
                continue
            pool.append(f"pair of {RANK_WORDS[a]}s, {RANK_LETTERS[b]}-x-x kickers")
            pool.append(f"two pair, {RANK_WORDS[max(a, b)]}s and {RANK_WORDS[min(a, b)]}s")
            pool.append(f"{RANK_WORDS[a]} high, {RANK_LETTERS[b]}-x-x-x")
            pool.append(f"full house, {RANK_WORDS[a]}s over {RANK_WORDS[b]}s")
        pool += [f"three {RANK_WORDS[a]}s", f"straight, {RANK_WORDS[a]} high",
                 f"flush, {RANK_WORDS[a]} high", f"four {RANK_WORDS[a]}s"]
    return tuple(pool)


LOW_RANKS = tuple([f"{a}-{b}" for i, a in enumerate(RANK_LETTERS) for b in RANK_LETTERS[:i]]
                  + [f"pair of {w}s" for w in RANK_WORDS])
TILE_RANKS = tuple([f"{p} points, {t} high" for p in range(10)
                    for t in ("Gor", "Mooy", "Chong", "Bon", "Foo", "Ping", "Tit", "Look")]
                   + [f"pair of {t}" for t in ("Teen", "Day", "Yun", "Gor", "Mooy", "Chong")]
                   + ["Gee Joon", "high nine", "Wong", "Gong"])
HIGH_RANKS = high_rank_pool()


def assemble(order: np.ndarray, parts: list[pa.Array]) -> pa.Array:
    """Rows of several arrays (part g holds the rows where ``order == g``, in row order)
    put back in row order."""
    sizes = [len(p) for p in parts]
    base = np.concatenate([[0], np.cumsum(sizes)])[:-1]
    rank = np.empty(order.size, np.int64)
    for g in range(len(parts)):
        where = np.flatnonzero(order == g)
        assert where.size == sizes[g]
        rank[where] = base[g] + np.arange(where.size)
    return pc.take(pa.concat_arrays(parts), pa.array(rank))


# One chunk of rounds ----------------------------------------------------------------------

SEATS_FROM_DEALER_RIGHT = np.arange(1, 8, dtype=np.int32)
"""Every synthetic table's layout (rounds.seat_order): seat 1 at the dealer's far right; the
timeline shows and pays the players in turn by it (docs/rules.md 6a.21), except that the
order faults of the settlements put some winners out of turn too."""


def seat_order(n: int) -> pa.Array:
    """``rounds.seat_order`` of ``n`` rounds, each table laid out as
    :data:`SEATS_FROM_DEALER_RIGHT`."""
    width = len(SEATS_FROM_DEALER_RIGHT)
    return pa.ListArray.from_arrays(
        pa.array(np.arange(0, width * (n + 1), width, dtype=np.int32)),
        pa.array(np.tile(SEATS_FROM_DEALER_RIGHT, n))).cast(pa.list_(pa.int32()))


def chunk(p: Params, lo: int, hi: int) -> dict[str, pa.Table]:
    """The rows of rounds lo..hi-1 (global numbering, in (casino, table, round) order)."""
    rng = np.random.default_rng([p.seed, lo])
    n = hi - lo
    f = p.fault_rate
    per_table = np.full(p.tables, p.rounds // p.tables)
    per_table[:p.rounds % p.tables] += 1
    first = np.concatenate([[0], np.cumsum(per_table)])
    idx = np.arange(lo, hi)
    t = np.searchsorted(first, idx, side="right") - 1
    seq = idx - first[t] + 1
    tables_per_casino = p.tables // p.casinos
    casino = np.minimum(t // tables_per_casino, p.casinos - 1)
    tnum = t - casino * tables_per_casino + 1
    game = t % 4
    seq_width = max(6, len(str(int(per_table.max()))))

    # rounds ------------------------------------------------------------------------------
    tid = np.empty((n, 4), np.uint8)
    tid[:, 0] = ord("T")
    digits(tid, 1, tnum, 3)
    rid = np.empty((n, 5 + seq_width), np.uint8)
    rid[:, :4] = tid
    rid[:, 4] = ord("-")
    digits(rid, 5, seq, seq_width)
    round_id = fixed_strings(rid)
    table_id = fixed_strings(tid)
    casino_a = vocab(tuple(f"C{c + 1:02d}" for c in range(p.casinos)), casino)
    game_a = vocab(GAMES, game)
    ruleset_a = vocab(RULESETS, game)
    seconds = (seq - 1) * 90 + rng.integers(0, 30, n)
    dealt = START_US + t * 7_000_000 + seconds * 1_000_000 + 500_000
    dealt_a = pa.array(dealt.astype(np.int64), type=pa.int64()).cast(TS)
    dealer = t * p.dealers_per_table + (seconds // 3600) % p.dealers_per_table + 1
    dm = np.empty((n, 5), np.uint8)
    dm[:, 0] = ord("E")
    digits(dm, 1, dealer, 4)
    dealer_a = fixed_strings(dm)

    k = rng.integers(3, MAX_SEATS[game] + 1)
    r7 = rng.random((n, 7), dtype=np.float32)
    r7[:, 6][MAX_SEATS[game] == 6] = 2.0  # seat 7 only at Caribbean stud
    occ = r7.argsort(axis=1).argsort(axis=1) < k[:, None]
    first_seat = r7.argmin(axis=1) + 1  # an occupied seat
    banked = np.isin(game, (PGP, TILES)) & (rng.random(n) < 0.10)
    co_bank = banked & (rng.random(n) < 0.4)
    banker_seat = np.where(banked, first_seat, 0)
    banker_words = ("dealer", *(f"seat {s}" for s in range(1, 8)),
                    *(f"seat {s} co-bank" for s in range(1, 8)))
    banker_a = vocab(banker_words, np.where(co_bank, banker_seat + 7, banker_seat))

    u = rng.random(n)
    not_eval = u < 0.1 * f
    irregular = (u >= 0.1 * f) & (u < 0.2 * f)
    voided = (u >= 0.2 * f) & (u < 0.2 * f + 0.0005)
    evaluated = ~not_eval
    which = rng.integers(0, 20, n)
    problem_texts = ([a.replace("{s}", str(s)) for a, _ in NOT_EVALUATED for s in range(1, 6)]
                     + [a.replace("{s}", str(s)) for a, _ in IRREGULAR for s in range(1, 5)])
    problem_kinds = ([b for _, b in NOT_EVALUATED for _ in range(1, 6)]
                     + [b for _, b in IRREGULAR for _ in range(1, 5)])
    has_problem = not_eval | irregular
    problem = np.where(not_eval, which, 20 + which)
    kinds_offsets = np.concatenate([[0], np.cumsum(has_problem)]).astype(np.int32)
    problems_a = pa.ListArray.from_arrays(pa.array(kinds_offsets),  # one problem, one kind
                                          vocab(tuple(problem_texts), problem[has_problem]))
    kinds_a = pa.ListArray.from_arrays(pa.array(kinds_offsets),
                                       vocab(tuple(problem_kinds), problem[has_problem]))
    meter = np.where(game == TILES, 0, 2_500_000 + (seq * 20) % 500_000)

    # hands: dealer (slot 0) then the occupied seats --------------------------------------
    slots = np.concatenate([np.ones((n, 1), bool), occ], axis=1)
    h_r, h_slot = np.nonzero(slots)
    h_game = game[h_r]
    hands_of = np.concatenate([[0], np.cumsum(slots.sum(axis=1))])
    nh = h_r.size
    cards_parts, high_parts, low_parts, hr_parts, lr_parts = [], [], [], [], []
    h_rank = np.arange(nh) - hands_of[h_r]  # 0 for the dealer, then the seats in order
    for g in range(4):
        sel = h_game == g
        m = int(sel.sum())
        # one deck (a tile set) a round: no card is dealt twice in a round
        deck = TILE_DECK.size if g == TILES else 53 if g in (PGP, FACE_UP) else 52
        size = 4 if g == TILES else 7 if g in (PGP, FACE_UP) else 5
        in_game = np.cumsum(game == g) - 1
        perm = rng.random((int((game == g).sum()), deck), dtype=np.float32).argsort(axis=1)
        c = perm[in_game[h_r[sel]][:, None], h_rank[sel][:, None] * size + np.arange(size)]
        if g in (PGP, FACE_UP):
            cards_parts.append(fixed_strings(card_text(c, CARD_CODES)))
            high_parts.append(fixed_strings(card_text(c[:, :5], CARD_CODES)))
            low_parts.append(fixed_strings(card_text(c[:, 5:], CARD_CODES)))
            hr_parts.append(vocab(HIGH_RANKS, rng.integers(0, len(HIGH_RANKS), m)))
            lr_parts.append(vocab(LOW_RANKS, rng.integers(0, len(LOW_RANKS), m)))
        elif g == TILES:
            c = TILE_DECK[c]
            cards_parts.append(fixed_strings(card_text(c, TILE_CODES)))
            high_parts.append(fixed_strings(card_text(c[:, 2:], TILE_CODES)))
            low_parts.append(fixed_strings(card_text(c[:, :2], TILE_CODES)))
            hr_parts.append(vocab(TILE_RANKS, rng.integers(0, len(TILE_RANKS), m)))
            lr_parts.append(vocab(TILE_RANKS, rng.integers(0, len(TILE_RANKS), m)))
        else:
            cards_parts.append(fixed_strings(card_text(c, CARD_CODES)))
            for parts in (high_parts, low_parts, hr_parts, lr_parts):
                parts.append(pa.nulls(m, pa.string()))
    cards_a = assemble(h_game, cards_parts)
    high_a = assemble(h_game, high_parts)
    low_a = assemble(h_game, low_parts)
    is_dealer = h_slot == 0
    pai_gow = h_game != STUD
    foul = ~is_dealer & pai_gow & (rng.random(nh) < 0.005)
    off_house_way = is_dealer & pai_gow & evaluated[h_r] & (rng.random(nh) < 0.3 * f)
    hw_other = pc.take(high_a, pa.array(np.roll(np.arange(nh), 1)))
    lw_other = pc.take(low_a, pa.array(np.roll(np.arange(nh), 1)))
    no_hw = pa.array(~off_house_way)
    action = np.full(nh, -1)
    stud_seat = (h_game == STUD) & ~is_dealer
    ra = rng.random(nh)
    action[stud_seat] = np.where(ra[stud_seat] < 0.03, 2, np.where(ra[stud_seat] < 0.45, 1, 0))
    tile_seat = (h_game == TILES) & ~is_dealer
    action[tile_seat & (ra < 0.02)] = 3
    raised = np.zeros((n, SLOTS), bool)
    raised[h_r, h_slot] = action == 0
    fouled = np.zeros((n, SLOTS), bool)
    fouled[h_r, h_slot] = foul
    gave_up = np.full((n, SLOTS), -1)
    gave_up[h_r, h_slot] = np.where(action > 0, action, -1)  # fold, concede, withdraw
    seat_col = ints(h_slot, pa.int32(), is_dealer)
    hands = pa.Table.from_arrays([
        pc.take(round_id, h_r), pc.take(casino_a, h_r), pc.take(table_id, h_r),
        pc.take(game_a, h_r),
        vocab(POSITIONS, np.where(is_dealer, 0, h_slot + 1)), seat_col, cards_a, high_a, low_a,
        assemble(h_game, hr_parts), assemble(h_game, lr_parts),
        pa.array(foul), pa.array(np.where(is_dealer & pai_gow, ~off_house_way, False),
                                 mask=~(is_dealer & pai_gow)),
        pc.if_else(no_hw, pa.nulls(nh, pa.string()), hw_other),
        pc.if_else(no_hw, pa.nulls(nh, pa.string()), lw_other),
        ints((rng.random(nh) < 0.002).astype(np.int32), pa.int32()),
        pa.array(pai_gow | is_dealer), vocab(ACTIONS, np.maximum(action, 0), action < 0),
    ], schema=HANDS)

    # notation: "<round> <game> [B=S<n>] [M=<meter>] D=<cards> S<n>=<cards> ..." ----------
    head = join(round_id, " ", game_a,
                pc.if_else(pa.array(banked), join(" B=S", pc.cast(pa.array(banker_seat),
                                                                  pa.string())), ""),
                pc.if_else(pa.array(game != TILES), join(" M=", pc.cast(pa.array(meter),
                                                                        pa.string())), ""))
    seg = join(vocab((" D=", *(f" S{s}=" for s in range(1, 8))), h_slot), cards_a)
    pos = np.empty(n + nh, np.int64)
    at = np.arange(n) + hands_of[:-1]
    pos[at] = np.arange(n)
    pos[np.setdiff1d(np.arange(n + nh), at, assume_unique=True)] = n + np.arange(nh)
    notation = join_groups(pc.take(pa.concat_arrays([head, seg]), pa.array(pos)),
                           np.concatenate([at, [n + nh]]))

    # wagers ---------------------------------------------------------------------------------
    odds = WAGER_ODDS[game]  # (n, 4)
    w = occ[:, :, None] & (rng.random((n, 7, 4), dtype=np.float32) < odds[:, None, :])
    stud = game == STUD
    w[stud, :, 2] = raised[stud, 1:]  # raise: when the seat raised
    none = occ & ~w.any(axis=2)
    main_slot = MAIN_SLOT[game]
    rows = np.arange(n)
    for s in range(7):
        w[rows, s, main_slot] |= none[:, s]
    wt = np.zeros((n, SLOTS, 4), bool)
    wt[:, 1:] = w
    wt[rows, 0, main_slot] = banked
    w_r, w_slot, w_k = np.nonzero(wt)
    nw = w_r.size
    w_game = game[w_r]
    name = GAME_WAGERS[w_game, w_k]
    base = rng.integers(2, 21, (n, SLOTS)) * 500  # main: $10-$100
    amount = np.select(
        [name == MAIN, name == ANTE, name == RAISE, np.isin(name, (FORTUNE, ACE_HIGH)),
         (name == PROGRESSIVE) & (w_game == STUD)],
        [base[w_r, w_slot], base[w_r, w_slot] // 2, base[w_r, w_slot],
         rng.integers(1, 6, nw) * 500, np.full(nw, 100)],
        rng.integers(1, 6, nw) * 100)
    uo = rng.random(nw)
    qualifies = rng.random(n) < 0.55  # the dealer qualifies (Caribbean stud)
    seat_wins = rng.random((n, SLOTS)) < 0.45
    sw = seat_wins[w_r, w_slot]
    dq = qualifies[w_r]
    folded = (name == ANTE) & ~raised[w_r, w_slot]
    outcome = np.select(
        [name == MAIN, name == ANTE, name == RAISE, name == FORTUNE, name == ACE_HIGH],
        [np.where(uo < 0.3, WIN, np.where(uo < 0.6, PUSH, LOSS)),
         np.where(folded, LOSS, np.where(~dq | sw, WIN, LOSS)),
         np.where(~dq, VOID, np.where(sw, WIN, LOSS)),
         np.where(uo < 0.12, WIN, LOSS), np.where(uo < 0.15, WIN, LOSS)],
        np.where(uo < 0.01, WIN, LOSS))
    mult = np.select(
        [name == FORTUNE, name == ACE_HIGH, name == RAISE, name == PROGRESSIVE],
        [rng.choice([2, 3, 4, 15, 25, 50], nw), rng.choice([1, 5, 10, 25], nw),
         rng.choice([1, 1, 1, 2, 3, 4, 5, 7, 20], nw), rng.choice([5, 25, 75, 500], nw)], 1)
    taxed = (name == MAIN) & np.isin(w_game, (PGP, TILES)) & (w_slot != 0)
    # a fouled hand loses its main wager; a hand folded, conceded or withdrawn wins nothing
    # (a folded Caribbean stud hand's progressive is still paid on its cards)
    quit_ = gave_up[w_r, w_slot]
    outcome = np.where((name == MAIN) & fouled[w_r, w_slot], LOSS, outcome)
    outcome = np.where((quit_ == 3) & (outcome == WIN), VOID, outcome)
    outcome = np.where((quit_ > 0) & ~((quit_ == 1) & (name == PROGRESSIVE)) & (outcome == WIN),
                       LOSS, outcome)
    # the house's commission: 5% rounded down (pai gow poker), or up to the next 25 cents and
    # never more than the win (tiles), as the shipped rulesets collect it (docs/rules.md 6a.2)
    exact = amount * 5 // 100
    tiles_vig = np.minimum((amount * 5 + 2499) // 2500 * 25, amount)
    commission = np.where(taxed & (outcome == WIN), np.where(w_game == TILES, tiles_vig, exact),
                          0)
    net = np.select([outcome == WIN, outcome == LOSS], [amount * mult - commission, -amount], 0)
    position = np.where(w_slot == 0, 0,
                        np.where(banked[w_r] & (w_slot == banker_seat[w_r]) & (name == MAIN),
                                 1, w_slot + 1))
    r_outcome, r_net, r_comm = outcome.copy(), net.copy(), commission.copy()
    w_eval = evaluated[w_r]
    fault = w_eval & (position != 1) & (rng.random(nw) < 0.6 * f * n / nw)
    kind = rng.random(nw)
    mispay = fault & (kind < 0.7)
    unsettled = fault & (kind >= 0.7) & (kind < 0.8)
    on_push = fault & (kind >= 0.8) & (kind < 0.9)
    wrong = fault & (kind >= 0.9)
    r_net = np.where(mispay, net + rng.choice([-2500, -500, -100, 100, 500, 2500], nw), r_net)
    fee = np.maximum(amount * 5 // 100, 25)
    lossy = np.where(kind < 0.85, LOSS, PUSH)
    outcome = np.where(on_push, lossy, outcome)
    net = np.where(on_push, np.where(lossy == LOSS, -amount, 0), net)
    commission = np.where(on_push, 0, commission)
    r_outcome, r_net, r_comm = (np.where(on_push, outcome, r_outcome),
                                np.where(on_push, net, r_net), np.where(on_push, fee, r_comm))
    outcome = np.where(wrong, WIN, outcome)
    commission = np.where(wrong, fee, commission)
    net = np.where(wrong, amount - fee, net)
    r_comm = np.where(wrong, fee + rng.choice([-25, 25, 100], nw), r_comm)
    r_outcome, r_net = np.where(wrong, WIN, r_outcome), np.where(wrong, amount - r_comm, r_net)
    # the lawful range (docs/rules.md 6a.19): a tiles main win's vigorish from the exact 5%
    # rounded down to the cent; every other amount is the point
    ranged = (w_game == TILES) & (name == MAIN) & (outcome == WIN) & (w_slot != 0)
    c_lo = np.where(ranged, np.minimum(exact, commission), commission)
    n_lo, n_hi = net, net + (commission - c_lo)
    no_exp = ~w_eval
    wagers = pa.Table.from_arrays([
        pc.take(round_id, w_r), pc.take(casino_a, w_r), pc.take(table_id, w_r),
        pc.take(game_a, w_r), pc.take(ruleset_a, w_r), pc.take(dealt_a, w_r),
        pc.take(dealer_a, w_r), pc.take(banker_a, w_r),
        ints(w_slot, pa.int32(), w_slot == 0), vocab(POSITIONS, position),
        vocab(WAGER_NAMES, name), ints(amount, pa.int64()),
        vocab(OUTCOMES, r_outcome, unsettled), ints(r_net, pa.int64(), unsettled),
        ints(r_comm, pa.int64(), unsettled),
        vocab(OUTCOMES, outcome, no_exp), ints(net, pa.int64(), no_exp),
        ints(commission, pa.int64(), no_exp),
        ints(n_lo, pa.int64(), no_exp), ints(n_hi, pa.int64(), no_exp),
        ints(c_lo, pa.int64(), no_exp), ints(commission, pa.int64(), no_exp),
        pa.nulls(nw, pa.string()),  # patron_id: no player tracking recorded
    ], schema=WAGERS)

    # the round totals replay writes into rounds (replay/run.py _round_totals), in integer
    # cents: the patrons' wagers without the Progressive, their house win as recorded, and,
    # for a judged round, the net mispay and the count of mispaid wagers
    patron = position >= 2
    recorded0 = np.where(unsettled, 0, r_net)
    wagered_t, house_t, mispay_t, mispaid_t = (np.zeros(n, np.int64) for _ in range(4))
    in_table = patron & (name != PROGRESSIVE)
    np.add.at(wagered_t, w_r, np.where(in_table, amount, 0))
    np.add.at(house_t, w_r, np.where(in_table, -recorded0, 0))
    outside = unsettled | (r_net < n_lo) | (r_net > n_hi)
    nearest = np.where(unsettled, net, np.where(r_net > n_hi, n_hi, n_lo))
    np.add.at(mispay_t, w_r, np.where(patron & outside, recorded0 - nearest, 0))
    np.add.at(mispaid_t, w_r, outside.astype(np.int64))

    # envy: pai gow poker and Face Up, 2% of rounds; totals for every other seat with a
    # Fortune or Progressive wager, then the payments ---------------------------------------
    qual = np.zeros((n, SLOTS), bool)  # replay's qualifying_wager: any Fortune/Progressive
    q_rows = (name == FORTUNE) | (name == PROGRESSIVE)
    qual[w_r[q_rows], w_slot[q_rows]] = True
    q_cents = np.zeros((n, SLOTS), np.int64)  # and the largest of them (qualifying_wager_cents)
    np.maximum.at(q_cents, (w_r[q_rows], w_slot[q_rows]), amount[q_rows])
    owed = np.zeros((n, SLOTS), bool)  # and of at least $5 (qualifying_wager_cents)
    q_rows &= amount >= 500
    owed[w_r[q_rows], w_slot[q_rows]] = True
    envy_round = np.isin(game, (PGP, FACE_UP)) & (rng.random(n) < 0.02)
    holder = first_seat
    cand = owed & envy_round[:, None]
    cand[rows, holder] = False
    e_r, e_seat = np.nonzero(cand)
    ne = e_r.size
    e_exp = rng.choice([500, 2000, 5000], n)[e_r]
    e_exp = np.where(evaluated[e_r], e_exp, 0)
    e_rec = e_exp.copy()
    bad = rng.random(ne)
    e_rec = np.where(bad < 0.03, np.where(bad < 0.015, 0, 2 * e_exp), e_rec)
    paid = e_rec > 0
    p_r, p_seat, p_amt = e_r[paid], e_seat[paid], e_rec[paid]
    p_for = holder[p_r].copy()
    own = rng.random(p_r.size)
    p_for = np.where(own < 0.02, np.where(own < 0.01, 0, p_seat), p_for)
    er = np.concatenate([e_r, p_r])
    order = np.lexsort((np.concatenate([e_seat, p_seat]),
                        np.concatenate([np.zeros(ne, int), np.ones(p_r.size, int)]), er))
    er = er[order]
    is_total = np.concatenate([np.ones(ne, bool), np.zeros(p_r.size, bool)])[order]
    e_seat_all = np.concatenate([e_seat, p_seat])[order]
    e_for = np.concatenate([np.zeros(ne, int), p_for])[order]
    e_rec_all = np.concatenate([e_rec, p_amt])[order]
    e_exp_all = np.concatenate([e_exp, np.zeros(p_r.size, int)])[order]
    exp_null = ~is_total | ~evaluated[er]
    envy = pa.Table.from_arrays([
        pc.take(round_id, er), pc.take(casino_a, er), pc.take(table_id, er),
        pc.take(game_a, er), ints(e_seat_all, pa.int32()),
        ints(e_for, pa.int32(), is_total | (e_for == 0)),
        vocab(("dealer", *(f"seat {s}" for s in range(1, 8))), e_for, is_total),
        vocab(("total", "payment"), (~is_total).astype(int)), ints(e_rec_all, pa.int64()),
        ints(e_exp_all, pa.int64(), exp_null), pa.array(qual[er, e_seat_all]),
        ints(q_cents[er, e_seat_all], pa.int64(), ~qual[er, e_seat_all]),
        pa.array(np.full(er.size, 500, np.int64)),  # the shipped rulesets' $5 (6a.11)
    ], schema=ENVY)

    # bankers: one row per player-banked round -------------------------------------------
    b_r = np.flatnonzero(banked)
    nb = b_r.size
    b_net = rng.integers(-480, 481, nb) * 25
    b_comm = np.where(b_net > 0, b_net * 5 // 95 // 25 * 25, 0)
    bb = rng.random(nb)
    b_rec_net = np.where(bb < 0.03, b_net + rng.choice([-500, 500, 2500], nb), b_net)
    b_unsettled = bb > 0.997
    b_noexp = ~evaluated[b_r]
    bankers = pa.Table.from_arrays([
        pc.take(round_id, b_r), pc.take(casino_a, b_r), pc.take(table_id, b_r),
        pc.take(game_a, b_r), ints(banker_seat[b_r], pa.int32()), pa.array(co_bank[b_r]),
        ints(b_rec_net, pa.int64(), b_unsettled), ints(b_comm, pa.int64(), b_unsettled),
        ints(b_net, pa.int64(), b_noexp), ints(b_comm, pa.int64(), b_noexp),
        ints(rng.integers(-400, 401, nb) * 25, pa.int64(), b_noexp),
        # the range is the point: the bank's amounts are drawn in multiples of 25 cents
        ints(b_net, pa.int64(), b_noexp), ints(b_net, pa.int64(), b_noexp),
        ints(b_comm, pa.int64(), b_noexp), ints(b_comm, pa.int64(), b_noexp),
    ], schema=BANKERS)

    # jackpots: one row per progressive win ----------------------------------------------
    jw = np.flatnonzero((name == PROGRESSIVE) & (outcome == WIN) & w_eval)
    j_r = w_r[jw]
    nj = j_r.size
    hand = np.minimum(rng.choice(5, nj, p=[0.6, 0.25, 0.1, 0.04, 0.01]),
                      np.where(game[j_r] == STUD, 3, 4))
    from_meter = hand >= 3
    jf = rng.random(nj)
    broken_step = np.where(jf < 0.025, rng.integers(0, 5, nj), -1)
    low_role = (jf >= 0.025) & (jf < 0.035)
    from_inventory = (jf >= 0.035) & (jf < 0.045)
    from_meter = from_meter | from_inventory
    steps = [broken_step != s for s in range(5)]
    floor = pc.take(vocab(tuple(f"F{x:04d}" for x in range(p.tables)), t), pa.array(j_r))
    role = vocab(("floorperson", "dealer"), low_role.astype(int))
    who = join(" by ", floor, " (", role, ")")
    step_text = [pc.if_else(pa.array(ok), join(s, who), pa.nulls(nj, pa.string()))
                 for s, ok in zip(("hand_verified", "light_illuminated", "validated", "paid",
                                   "documented"), steps, strict=True)]
    jackpots = pa.Table.from_arrays([
        pc.take(round_id, j_r), pc.take(casino_a, j_r), pc.take(table_id, j_r),
        pc.take(game_a, j_r), ints(w_slot[jw], pa.int32()), vocab(JACKPOT_HANDS, hand),
        vocab(JACKPOT_HANDS, hand),  # judged as declared: a synthetic table declares right
        pa.array(np.ones(nj, bool)),
        ints(meter[j_r], pa.int64()), ints(net[jw], pa.int64()), ints(net[jw], pa.int64()),
        *(pa.array(s) for s in steps),
        pc.if_else(pa.array(steps[2]), floor, pa.nulls(nj, pa.string())),
        pc.if_else(pa.array(steps[2]), role, pa.nulls(nj, pa.string())),
        pc.if_else(pa.array(steps[3]), vocab(("meter", "table_inventory"),
                                             (~from_meter | from_inventory).astype(int)),
                   pa.nulls(nj, pa.string())),
        pa.array(from_meter),
        pc.binary_join_element_wise(*step_text, ", ", null_handling="skip"),
    ], schema=JACKPOTS)

    rounds = pa.Table.from_arrays([
        round_id, casino_a, table_id, game_a, ruleset_a, dealt_a, dealer_a, banker_a,
        pa.array(evaluated), pa.array(voided),
        vocab(("dealer misdeal",), np.zeros(n, int), ~voided), pa.array(np.ones(n, bool)),
        ints(8 + 4 * slots.sum(axis=1) + rng.integers(0, 6, n), pa.int32()),
        ints((rng.random(n) < 0.002).astype(int), pa.int32()),
        ints(meter, pa.int64(), game == TILES), pa.nulls(n, pa.string()),
        pa.nulls(n, pa.int64()), seat_order(n), problems_a, kinds_a, notation,
        ints(wagered_t, pa.int64()), ints(house_t, pa.int64()),
        ints(mispay_t, pa.int64(), ~evaluated), ints(mispaid_t, pa.int32(), ~evaluated),
        pa.nulls(n, pa.int32()), pa.nulls(n, pa.int64()),  # vocabulary, banker_cover_cents
    ], schema=ROUNDS)
    play = timeline(np.random.default_rng([p.seed, lo, 7]), f, game, seq, dealt, rid,
                    round_id, casino_a, table_id, game_a, dealer_a, banker_seat,
                    h_r, h_slot, action, w_r, w_slot, name, r_outcome, r_net, unsettled,
                    p_r, p_seat, p_for, b_r)
    return {"rounds": rounds, "hands": hands, "wagers": wagers, "envy": envy,
            "bankers": bankers, "jackpots": jackpots, "timeline": play}


# The timeline: the events of each round in the table's order ----------------------------

EVENTS = ("round started", "progressive meter read", "wager placed", "cards dealt",
          "tiles dealt", "hand set", "player acted", "hands exposed", "wager settled",
          "Envy Bonus paid", "banker settled", "round ended")
"""replay/timeline.py EVENT_WORDS, of the events drawn here."""
(STARTED, METER, PLACED, CARDS, TILES_DEALT, SET, ACTED, EXPOSED, SETTLED, ENVY_PAID,
 BANKER_SETTLED, ENDED) = range(len(EVENTS))
ROUND_WIDE = (STARTED, METER, ENDED)
WHO = (*(f"{who}: " for who in POSITIONS), "")
SUMMARIES = tuple(f"{who}{event}" for event in EVENTS for who in WHO)
"""A row's summary, in words without the money (the checks never read it)."""


def timeline(rng: np.random.Generator, f: float, game: np.ndarray, seq: np.ndarray,
             dealt: np.ndarray, rid: np.ndarray, round_id: pa.Array, casino_a: pa.Array,
             table_id: pa.Array, game_a: pa.Array, dealer_a: pa.Array,
             banker_seat: np.ndarray, h_r: np.ndarray, h_slot: np.ndarray,
             action: np.ndarray, w_r: np.ndarray, w_slot: np.ndarray, name: np.ndarray,
             r_outcome: np.ndarray, r_net: np.ndarray, unsettled: np.ndarray,
             p_r: np.ndarray, p_seat: np.ndarray, p_for: np.ndarray, b_r: np.ndarray) -> pa.Table:
    """``timeline.parquet``'s rows of the chunk's rounds, as replay writes them (schema
    ``replay.run.TIMELINE``; no correction, so every event stands where it is), the events
    in the lawful order of each game as the simulator sends them (ingest/sim_record.py
    ``protocol``): started, meter read, wagers placed, cards (tiles) dealt; then Caribbean
    stud: each seat's raise (with its raise wager) or fold, the dealer's hand exposed, the
    concedes; Face Up: the dealer's hand set and exposed, the seats' hands set, then shown;
    pai gow poker and tiles: the players set, then the player banker, then the dealer, the
    withdrawals, the seats' hands shown (the banker's last), the dealer's; then the main
    wagers settled, losses, ties, wins; the side wagers, the dealer's own wager, the Envy
    Bonuses, the banker's account; round ended. A small share of order faults (about
    ``f``/5 of the hand settings and main settlements, 2 ``f`` of the Envy Bonuses,
    concedes and withdrawals) moves one event out of its place, so that each check of the
    order of play has rows: a Face Up seat set before the dealer, a winner paid before the
    losers, an Envy Bonus before the Fortune wagers, a concede before the dealer's hand was
    exposed, a player banker before a player or a player after the dealer (pai gow poker),
    a player after the dealer (tiles), a withdrawal before the dealer set. Drawn with its
    own generator, so that the other files are those of the data without a timeline."""
    n = game.size
    nh, nw = h_r.size, w_r.size
    h_game, w_game = game[h_r], game[w_r]
    seat_h = h_slot != 0
    banker_h = seat_h & (h_slot == banker_seat[h_r])
    parts: list[tuple[np.ndarray, ...]] = []

    def add(r: np.ndarray, stage: np.ndarray | int, slot: np.ndarray | int,
            kind: np.ndarray | int, wager: np.ndarray | int = -1, act: np.ndarray | int = -1,
            for_seat: np.ndarray | int = -1, net: np.ndarray | int = 0,
            outcome: np.ndarray | int = -1) -> None:
        m = r.size
        parts.append(tuple(np.broadcast_to(np.asarray(v, np.int64), (m,)) for v in (
            r, stage, slot, kind, wager, act, for_seat, net, outcome)))

    # stages, in tens: a fault moves an event to a stage between two lawful ones
    everyone = np.arange(n)
    add(everyone, 0, 9, STARTED)
    add(np.flatnonzero(game != TILES), 10, 9, METER)
    placed = name != RAISE
    add(w_r[placed], 20, np.where(w_slot[placed] == 0, 8, w_slot[placed]), PLACED,
        wager=name[placed])
    add(h_r, 30, np.where(seat_h, h_slot, 8), np.where(h_game == TILES, TILES_DEALT, CARDS))

    u = rng.random(nh)
    # Caribbean stud: a raise (and its wager) or a fold, the dealer's hand, the concedes
    stud = (h_game == STUD) & seat_h
    # a raise (a seat that conceded raised first), else a fold
    add(h_r[stud], 100, h_slot[stud], ACTED, act=np.where(action[stud] == 1, 1, 0))
    raised = name == RAISE
    add(w_r[raised], 100, w_slot[raised], PLACED, wager=RAISE)
    add(np.flatnonzero(game == STUD), 110, 8, EXPOSED)
    conc = stud & (action == 2)
    add(h_r[conc], np.where(u[conc] < 2 * f, 105, 120), h_slot[conc], ACTED, act=2)
    # Face Up: the dealer sets and shows, then the seats set, then are shown
    fu = h_game == FACE_UP
    add(np.flatnonzero(game == FACE_UP), 100, 8, SET)
    add(np.flatnonzero(game == FACE_UP), 110, 8, EXPOSED)
    fs = fu & seat_h
    add(h_r[fs], np.where(u[fs] < 0.2 * f, 95, 120), h_slot[fs], SET)
    add(h_r[fs], 130, h_slot[fs], EXPOSED)
    # pai gow poker and tiles: players, the player banker, the dealer; withdrawals; shown
    classic = np.isin(h_game, (PGP, TILES))
    players = classic & seat_h & ~banker_h
    late = u < 0.2 * f
    tiles = h_game == TILES
    add(h_r[players], np.where(late[players], 125, 100), h_slot[players], SET)
    bk = classic & banker_h
    add(h_r[bk], np.where(late[bk] & ~tiles[bk], 95, 110), h_slot[bk], SET)
    cl_rounds = np.flatnonzero(np.isin(game, (PGP, TILES)))
    add(cl_rounds, 120, 8, SET)
    wd = players & tiles & (action == 3)
    add(h_r[wd], np.where(u[wd] < 2 * f, 115, 130), h_slot[wd], ACTED, act=3)
    shown = classic & seat_h & ~((action == 3) & tiles)
    # in turn around the table (seat_order 1..7): from the dealer's far right in tiles and
    # a dealer-banked pai gow poker round; from the player banker's right (the seats after
    # the banker's, wrapping round) in a player-banked one, the banker's own hand last
    turn = np.where((h_game == PGP) & (banker_seat[h_r] > 0),
                    (h_slot - banker_seat[h_r]) % 7, 0)
    turn = np.where(banker_h, 7, turn)
    add(h_r[shown], 140 + turn[shown], np.where(banker_h[shown], 8, h_slot[shown]), EXPOSED)
    add(cl_rounds, 150, 8, EXPOSED)

    # settlements: main losses, ties, wins; side wagers; the dealer's; Envy; the banker
    settled = ~unsettled
    main = (name == MAIN) & (w_slot != 0) & (w_game != STUD)
    uw = rng.random(nw)
    stage = np.where(main, np.where(r_net < 0, 200, np.where(r_net == 0, 210, 220)), 230)
    stage = np.where(main & (r_net > 0) & (uw < 0.2 * f), 195, stage)
    stage = np.where(w_slot == 0, 240, stage)
    add(w_r[settled], stage[settled], np.where(w_slot == 0, 8, w_slot)[settled], SETTLED,
        wager=name[settled], net=r_net[settled], outcome=r_outcome[settled])
    ue = rng.random(p_r.size)
    add(p_r, np.where(ue < 2 * f, 225, 250), p_seat, ENVY_PAID, for_seat=p_for)
    add(b_r, 260, banker_seat[b_r], BANKER_SETTLED)
    add(everyone, 300, 9, ENDED)

    r, stage, slot, kind, wager, act, for_seat, net, outcome = (
        np.concatenate(c) for c in zip(*parts, strict=True))
    made = np.arange(r.size)  # the order of creation: a tie broken the same way every run
    order = np.lexsort((made, slot, stage, r))
    r, slot, kind, wager, act, for_seat, net, outcome = (
        a[order] for a in (r, slot, kind, wager, act, for_seat, net, outcome))
    m = r.size
    k = np.arange(m) - np.searchsorted(r, r)  # the event's place in its round, from 0
    table_seq = seq[r].astype(np.int64) * 100 + k + 1
    wide = np.isin(kind, ROUND_WIDE)
    seat = np.where(wide | (slot >= 8), 0, slot)
    banker = (seat != 0) & (seat == banker_seat[r])
    position = np.where(wide, 9, np.where(seat == 0, 0, np.where(banker, 1, seat + 1)))
    width = rid.shape[1]
    eid = np.empty((m, width + 3), np.uint8)
    eid[:, :width] = rid[r]
    eid[:, width] = ord("-")
    digits(eid, width + 1, k + 1, 2)
    seq_a = ints(table_seq, pa.int64())
    r_a = pa.array(r)
    return pa.Table.from_arrays([
        pc.take(round_id, r_a), pc.take(casino_a, r_a), pc.take(table_id, r_a),
        pc.take(game_a, r_a), seq_a,
        pa.array(dealt[r] - 20_000_000 + k * 1_500_000, pa.int64()).cast(TS),
        pc.take(dealer_a, r_a), vocab(EVENTS, kind),
        vocab(SUMMARIES, kind * len(WHO) + position), fixed_strings(eid),
        pa.nulls(m, pa.string()), pa.array(np.zeros(m, bool)), pa.nulls(m, pa.string()),
        ints(seat, pa.int32(), seat == 0),
        vocab(POSITIONS, np.minimum(position, 8), position == 9),
        vocab(WAGER_NAMES, np.maximum(wager, 0), wager < 0),
        vocab(OUTCOMES, np.maximum(outcome, 0), outcome < 0),
        vocab(ACTIONS, np.maximum(act, 0), act < 0),
        ints(for_seat, pa.int32(), for_seat <= 0),
        ints(net, pa.int64(), outcome < 0),
        *(pa.nulls(m, pa.string()) for _ in range(5)),  # the facts of schema id 3: none
        seq_a,
    ], schema=TABLES["timeline"])


def findings(p: Params, count: int = 300) -> pa.Table:
    """A few hundred log findings: sequence gaps, duplicates, conflicts, undecodable records."""
    rng = np.random.default_rng([p.seed, 2**62])
    rows = []
    per_casino = p.tables // p.casinos
    per_table = p.rounds // p.tables
    for i in range(count):
        kind = ("sequence_gap", "duplicate_event", "conflicting_event",
                "undecodable_record")[int(rng.choice(4, p=[0.5, 0.3, 0.15, 0.05]))]
        t = int(rng.integers(0, p.tables))
        pos = int(rng.integers(0, 40 * p.rounds))
        part = int(rng.integers(0, 3))
        where = f"log position {pos} (shift-20260901T100000[{part}]@{pos // 3})"
        table = f"T{t % per_casino + 1:03d}"
        seq = int(rng.integers(1, max(per_table, 1) + 1))
        if kind == "undecodable_record":
            rows.append({"kind": kind, "casino": None, "table_id": None, "round_id": None,
                         "where": where, "detail": f"record {i} does not decode: "
                         "Avro body shorter than its schema"})
            continue
        rows.append({"kind": kind, "casino": f"C{min(t // per_casino, p.casinos - 1) + 1:02d}",
                     "table_id": table, "round_id": f"{table}-{seq:06d}", "where": where,
                     "detail": f"table {table} {kind.replace('_', ' ')}: {seq * 40 + 2} "
                     f"after {seq * 40}"})
    return pa.Table.from_pylist(rows, schema=FINDINGS)


# Writing, and the cache -------------------------------------------------------------------

def sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        while block := f.read(1 << 22):
            digest.update(block)
    return digest.hexdigest()


def write(p: Params, replay_dir: Path, progress: bool = True) -> dict[str, int]:
    """Write the eight files and the manifest into ``replay_dir`` (created); rows per file."""
    replay_dir.mkdir(parents=True)
    writers = {name: pq.ParquetWriter(replay_dir / f"{name}.parquet", schema, **WRITE_OPTIONS)
               for name, schema in TABLES.items() if name != "findings"}
    counts = dict.fromkeys(TABLES, 0)
    start = time.perf_counter()
    try:
        for lo in range(0, p.rounds, p.chunk):
            hi = min(lo + p.chunk, p.rounds)
            for name, table in chunk(p, lo, hi).items():
                writers[name].write_table(table, row_group_size=ROW_GROUP)
                counts[name] += table.num_rows
            if progress:
                print(f"synthetic: {hi:,} of {p.rounds:,} rounds "
                      f"({time.perf_counter() - start:.0f} s)", file=sys.stderr, flush=True)
    finally:
        for writer in writers.values():
            writer.close()
    found = findings(p)
    pq.write_table(found, replay_dir / "findings.parquet", **WRITE_OPTIONS)
    counts["findings"] = found.num_rows
    manifest = {
        "format": MANIFEST_FORMAT, "verified": False,
        "verification": "not verified: synthetic rows written by bench/synthetic_replay.py "
                        "(no log)",
        "log": {"records": None, "root": None, "checkpoint": None, "key_fingerprint": None},
        "rulesets": sorted(RULESETS), "code_version": "bench/synthetic_replay.py",
        "files": {f"{name}.parquet": sha256(replay_dir / f"{name}.parquet") for name in TABLES},
        "sizes": {f"{name}.parquet": (replay_dir / f"{name}.parquet").stat().st_size
                  for name in TABLES},
        "key_pinned": False, "trees": [], "ruleset_files": [],
    }
    # signed as replay signs it (replay/outputs.py), with the outputs' key of the data
    # directory, so that the checks verify it as they do in production
    write_signed(replay_dir, manifest, output_signer(replay_dir.parent, who="synthetic"))
    return counts


def ensure(p: Params, out: Path, progress: bool = True) -> tuple[Path, dict[str, int], bool]:
    """``out/replay`` holding data of parameters ``p``: reused when ``out/synthetic.json``
    says so (and that they were written in today's format), else written (into a temporary
    directory beside it, renamed when complete). Returns the replay directory, the rows per
    file and whether it was reused."""
    out.mkdir(parents=True, exist_ok=True)
    stamp = out / "synthetic.json"
    replay_dir = out / "replay"
    try:
        known = json.loads(stamp.read_text())
    except (OSError, ValueError):
        known = None
    if (isinstance(known, dict) and known.get("params") == asdict(p)
            and known.get("format") == MANIFEST_FORMAT  # files of today's columns
            and all((replay_dir / f"{n}.parquet").is_file() for n in TABLES)):
        return replay_dir, known["rows"], True
    stamp.unlink(missing_ok=True)
    if replay_dir.exists():
        shutil.rmtree(replay_dir)
    build = Path(tempfile.mkdtemp(prefix=".replay.building-", dir=out))
    try:
        build.rmdir()
        start = time.perf_counter()
        counts = write(p, build, progress)
        os.rename(build, replay_dir)
    finally:
        if build.exists():
            shutil.rmtree(build)
    seconds = time.perf_counter() - start
    stamp.write_text(json.dumps({"params": asdict(p), "format": MANIFEST_FORMAT, "rows": counts,
                                 "seconds_to_write": round(seconds, 1)}, indent=2) + "\n")
    return replay_dir, counts, False


def default_out(p: Params) -> Path:
    return Path(tempfile.gettempdir()) / f"catwalk-synthetic-{p.rounds}-seed{p.seed}"


def add_arguments(ap: argparse.ArgumentParser) -> None:
    ap.add_argument("--rounds", type=int, default=Params.rounds)
    ap.add_argument("--seed", type=int, default=Params.seed)
    ap.add_argument("--fault-rate", type=float, default=Params.fault_rate)
    ap.add_argument("--chunk", type=int, default=Params.chunk,
                    help="rounds drawn and written at a time (memory is bounded by it)")
    ap.add_argument("--out", type=Path, default=None,
                    help="data directory; replay's files go in OUT/replay (default: "
                    "a directory under the system's temporary directory named by rounds and "
                    "seed)")


def params_of(args: argparse.Namespace) -> Params:
    return Params(rounds=args.rounds, seed=args.seed, fault_rate=args.fault_rate,
                  chunk=args.chunk)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_arguments(ap)
    args = ap.parse_args(argv)
    p = params_of(args)
    out = args.out or default_out(p)
    start = time.perf_counter()
    replay_dir, counts, reused = ensure(p, out)
    size = sum(f.stat().st_size for f in replay_dir.glob("*.parquet"))
    print(f"{'reused' if reused else 'wrote'} {replay_dir} in "
          f"{time.perf_counter() - start:.1f} s: {size / 1e9:.2f} GB; rows "
          + ", ".join(f"{k} {v:,}" for k, v in counts.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
