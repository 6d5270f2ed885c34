"""What holds across the chains of several ingest workers (docs/log-integrity.md, "Several
workers"): each Kafka message in one chain, and the fencing epochs never going back.

Every worker writes a partition only under the epoch it raised when the consumer group
assigned the partition to it (ingest/fence.py), and signs that epoch in each segment's
checkpoint (``catwalk-epochs``). A new owner raises the epoch before it reads where the
other chains stopped, so, for each partition, the epochs of the records never go back as
the offsets grow: a record at a higher offset under a lower epoch was written by a worker
the fence had shut out, after the partition's new owner took it (Kleppmann, *Designing
Data-Intensive Applications*, 8.4, "Fencing tokens").

A Kafka message (``topic[partition]@offset``) in two chains:

- with different bytes (key, value or broker timestamp), is a failure: one of them is not
  the message Kafka holds;
- with the same bytes, is a **finding**: one message written twice (by a worker stopped past
  its group session, before fencing or around it), each chain whole and signed. Verification
  names it and passes; replay takes the message once and records the finding. Those copies
  are left out of the epoch check (what they say is said by the other copy), every other
  record is held to it.

A segment written without fencing (no ``catwalk-epochs``) has no epoch to check.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from schemas.logformat import Chain, LogError, read_segment

Keep = Callable[[dict[str, Any]], None]


@dataclass(frozen=True, slots=True, kw_only=True)
class Span:
    """Consecutive Kafka offsets ``first..last`` of one partition held by one segment of a
    chain, with the epoch the segment's checkpoint signs for that partition (None: written
    without fencing)."""

    first: int
    last: int
    epoch: int | None
    chain: Chain
    segment: Path


class ChainSpans:
    """Collects, while one chain is verified, the :class:`Span` of each of its segments (a
    ``schemas.log_verify.Keep`` given each record, and a ``Trail`` told of each segment),
    handing each record on to ``keep``."""

    def __init__(self, chain: Chain, keep: Keep | None = None) -> None:
        self.chain = chain
        self.spans: dict[tuple[str, int], list[Span]] = {}
        self._runs: dict[tuple[str, int], list[list[int]]] = {}
        inner = keep
        runs = self._runs

        def note(rec: dict[str, Any]) -> None:
            where = (rec["topic"], rec["partition"])
            offset = rec["offset"]
            held = runs.get(where)
            if held is None:
                runs[where] = [[offset, offset]]
            elif held[-1][1] + 1 == offset:
                held[-1][1] = offset
            else:
                held.append([offset, offset])
            if inner is not None:
                inner(rec)

        self.keep: Keep = note

    def entered(self, seg: Path) -> None:
        self._runs.clear()

    def verified(self, seg: Path, at: Any) -> None:
        epochs = at.checkpoint.epochs if at.checkpoint is not None else {}
        for (topic, partition), runs in self._runs.items():
            epoch = epochs.get(f"{topic}[{partition}]")
            self.spans.setdefault((topic, partition), []).extend(
                Span(first=a, last=b, epoch=epoch, chain=self.chain, segment=seg)
                for a, b in runs)
        self._runs.clear()


@dataclass(frozen=True, slots=True, kw_only=True)
class Across:
    """What the chains say together: the first problem (None: none), and the findings."""

    problem: str | None
    findings: tuple[str, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class _Held:
    number: int
    position: int
    timestamp_ms: int
    key: bytes | None
    value: bytes


def across(collected: list[ChainSpans]) -> Across:
    """Each message in one chain (or in two with the same bytes: a finding), and each
    partition's epochs never going back as offsets grow (see the module docstring)."""
    order = {c.chain: n for n, c in enumerate(collected)}
    by_partition: dict[tuple[str, int], list[Span]] = {}
    for c in collected:
        for where, spans in c.spans.items():
            by_partition.setdefault(where, []).extend(spans)
    findings: list[str] = []
    reader = _Reader()
    twice: dict[tuple[str, int], list[tuple[int, int]]] = {}
    for (topic, partition), spans in sorted(by_partition.items()):
        spans.sort(key=lambda s: (s.first, order[s.chain]))
        for a, b, lo, hi in _overlaps(spans):
            problem = _compare(reader, topic, partition, a, b, lo, hi, findings)
            if problem is not None:
                return Across(problem=problem, findings=tuple(findings))
            twice.setdefault((topic, partition), []).append((lo, hi))
    for (topic, partition), spans in sorted(by_partition.items()):
        problem = _epochs_go_back(topic, partition, spans, twice.get((topic, partition), []))
        if problem is not None:
            return Across(problem=problem, findings=tuple(findings))
    return Across(problem=None, findings=tuple(findings))


def _overlaps(spans: list[Span]) -> list[tuple[Span, Span, int, int]]:
    """Each pair of spans of different chains that share offsets, with the offsets shared
    (``spans`` sorted by first offset)."""
    found = []
    active: list[Span] = []
    for s in spans:
        active = [a for a in active if a.last >= s.first]
        for a in active:
            if a.chain != s.chain:
                found.append((a, s, s.first, min(a.last, s.last)))
        active.append(s)
    return found


def _compare(reader: _Reader, topic: str, partition: int, a: Span, b: Span, lo: int, hi: int,
             findings: list[str]) -> str | None:
    """The offsets ``lo..hi`` held by both spans: a finding when every message is the same
    in both, else the problem naming the first that differs."""
    held_a = reader.held(a.segment, topic, partition, lo, hi)
    held_b = reader.held(b.segment, topic, partition, lo, hi)
    for offset in range(lo, hi + 1):
        ra, rb = held_a.get(offset), held_b.get(offset)
        if ra is None or rb is None:
            continue  # not read again as it was verified: the walk's verdict stands
        if (ra.key, ra.value, ra.timestamp_ms) != (rb.key, rb.value, rb.timestamp_ms):
            differ = ", ".join(name for name, x, y in (
                ("key", ra.key, rb.key), ("value", ra.value, rb.value),
                ("timestamp", ra.timestamp_ms, rb.timestamp_ms)) if x != y)
            return (f"{topic}[{partition}]@{offset} is in two chains with different bytes "
                    f"({differ}): {_place(a, ra)} and {_place(b, rb)}: one of them is not "
                    "the message Kafka holds (a chain's records altered, or copied from "
                    "another topic)")
    count = hi - lo + 1
    what = (f"{topic}[{partition}]@{lo}" if count == 1 else
            f"{topic}[{partition}]@{lo}..{hi} ({count:,} messages)")
    findings.append(
        f"{what} in two chains, byte for byte the same (key, value, timestamp): "
        f"{_place(a, held_a.get(lo))} and {_place(b, held_b.get(lo))}; written twice (a "
        "worker stopped past its group session), taken once")
    return None


def _place(span: Span, held: _Held | None) -> str:
    epoch = f"epoch {span.epoch}" if span.epoch is not None else "no epoch"
    if held is None:
        return f"{span.chain.label} {span.segment.name} ({epoch})"
    return (f"{span.chain.label} {span.segment.name} record {held.number} (position "
            f"{held.position}, {epoch})")


class _Reader:
    """A partition's records in one segment, read again by offset."""

    def __init__(self) -> None:
        self._cache: dict[tuple[Path, str, int], dict[int, _Held]] = {}

    def held(self, segment: Path, topic: str, partition: int, lo: int, hi: int
             ) -> dict[int, _Held]:
        got = self._cache.get((segment, topic, partition))
        if got is None:
            got = {}
            try:
                for number, rec in enumerate(read_segment(segment), start=1):
                    if rec.topic == topic and rec.partition == partition:
                        got[rec.offset] = _Held(number=number, position=rec.position,
                                                timestamp_ms=rec.timestamp_ms, key=rec.key,
                                                value=rec.value)
            except LogError:
                pass  # it verified a moment ago; what cannot be read is not compared
            self._cache[(segment, topic, partition)] = got
        return {o: h for o, h in got.items() if lo <= o <= hi}


def _without(spans: list[Span], twice: list[tuple[int, int]]) -> list[Span]:
    """The spans that have an epoch, less the offsets held twice."""
    out: list[Span] = []
    for s in spans:
        if s.epoch is None:
            continue
        pieces = [(s.first, s.last)]
        for lo, hi in twice:
            cut = []
            for a, b in pieces:
                if hi < a or lo > b:
                    cut.append((a, b))
                    continue
                if a < lo:
                    cut.append((a, lo - 1))
                if hi < b:
                    cut.append((hi + 1, b))
            pieces = cut
        out.extend(Span(first=a, last=b, epoch=s.epoch, chain=s.chain, segment=s.segment)
                   for a, b in pieces)
    return out


def _epochs_go_back(topic: str, partition: int, spans: list[Span],
                    twice: list[tuple[int, int]]) -> str | None:
    """The first record written under an older epoch at a higher offset than a record of a
    newer epoch: a write by a fenced worker after the partition's new owner took it."""
    kept = sorted(_without(spans, twice), key=lambda s: (s.first, s.last))
    if not kept:
        return None
    firsts = [s.first for s in kept]
    best: list[Span] = []  # best[i]: the span of the highest epoch among kept[:i + 1]
    for s in kept:
        best.append(s if not best or (s.epoch or 0) > (best[-1].epoch or 0) else best[-1])
    for b in kept:
        n = bisect.bisect_left(firsts, b.last)  # spans starting below b's last offset
        if n == 0:
            continue
        a = best[n - 1]
        if (a.epoch or 0) > (b.epoch or 0):
            return (f"{topic}[{partition}]: the epochs go back: {b.chain.label} "
                    f"{b.segment.name} wrote offsets {b.first}..{b.last} under epoch "
                    f"{b.epoch}, but {a.chain.label} {a.segment.name} had written offset "
                    f"{a.first} under epoch {a.epoch}: a worker fenced off the partition "
                    "wrote it after its new owner took it")
    return None
