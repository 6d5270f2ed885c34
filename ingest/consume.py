"""Consume round events from Kafka into the append-only log (see ingest/log.py).

Every message ends in the log exactly once or in quarantine with its reason: the batch is
fsynced before offsets are committed, and on (re)assignment the consumer seeks to the
offsets the log itself records, so neither a crash nor a rebalance repeats or skips one.

Ingest never stops on input and never guesses:

- a message that is not an event (a tombstone, bytes that do not decode, a key that is not
  its table) is quarantined with the reason; so is an event whose id the log already holds
  with *different* bytes (a conflict, :mod:`ingest.event_index`). An exact repeat enters the
  log and replay reports the duplicate;
- a topic whose offsets went backwards (deleted and recreated, or truncated) is refused at
  start and at every (re)assignment (:class:`Refused`): the log cannot go on from it without
  skipping or repeating messages;
- a lost broker is retried with a growing wait, one line per retry, and ingest resumes from
  the log's offsets when it is back. A consumer that stops fetching after the broker came
  back (kafka-python 3.0.12 does: it reconnects but never fetches again) is replaced;
- ``--until-idle`` stops only when the log holds every partition of the topic to its end,
  not merely the partitions the group assigned to this worker (see :func:`run`).
"""

from __future__ import annotations

import gc
import signal
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kafka import ConsumerRebalanceListener, KafkaConsumer, OffsetAndMetadata, TopicPartition
from kafka.errors import KafkaError, NoOffsetForPartitionError, OffsetOutOfRangeError

from ingest.event_index import Conflicts, EventIndex, event_key
from ingest.fence import FenceBusy, Fenced, FenceError, Fences, fences_for
from ingest.judging import Judges, Ticket, Verdict, judge
from ingest.keys import load_signer
from ingest.log import LogWriter, Quarantined, Received
from ingest.peers import PeerOffsets
from replay.heap import collector_paused
from schemas.checkpoint import message_digest
from schemas.logformat import LogError, chain_of, headers_of

RETRY_FIRST_S = 0.5
RETRY_MAX_S = 10.0
PROBE_EVERY_S = 2.0
"""While no message arrives, how often ingest asks the broker for the partitions' ends: to
notice a lost broker, and a consumer that stopped fetching."""
STALL_S = 8.0
"""Messages waiting in an assigned partition and none delivered for this long: the consumer
is replaced (see the module docstring)."""
KAFKA_TIMEOUT_MS = 5_000
RETAKE_WAIT_S = 0.05
"""How long each turn of the main loop waits for the lock of a partition assigned but not
yet fenced (its lock held by a worker stopped while appending)."""


class Refused(Exception):
    """Ingest must not go on (exit code 2); the message says why and what to do."""


@dataclass(kw_only=True)
class IngestStats:
    appended: int = 0
    quarantined: int = 0
    conflicts: int = 0
    batches: int = 0
    kafka_errors: int = 0
    reconnects: int = 0
    fenced: int = 0
    """Messages dropped from batches because their partition was fenced (ingest/fence.py)."""
    reasons: dict[str, int] = field(default_factory=dict)


def log_partitions(log_dir: Path, log: LogWriter, topic: str) -> dict[int, int]:
    """``{partition: next offset}`` the log expects from ``topic``: every partition its
    signed checkpoints hold (with several workers, any worker's chain)."""
    log.refresh_peers()
    prefix = f"{topic}["
    out: dict[int, int] = {}
    for name, nxt in log.next_offsets().items():
        if name.startswith(prefix) and name.endswith("]") and name[len(prefix):-1].isdigit():
            out[int(name[len(prefix):-1])] = nxt
    return out


def offsets_problem(*, topic: str, log_dir: Path, expected: dict[int, int],
                    partitions: set[int], begin: dict[int, int],
                    end: dict[int, int]) -> str | None:
    """Why the log cannot go on from ``topic`` as it is now, or None.

    ``expected``: the next offset the log expects per partition; ``partitions``: the topic's
    partitions; ``begin``/``end``: its first and next offsets (for the partitions checked)."""
    found = []
    gone = sorted(set(expected) - partitions)
    if gone:
        has = f"{len(partitions)} partition{'s' if len(partitions) != 1 else ''}"
        found.append(f"the log holds partition{'s' if len(gone) > 1 else ''} "
                     f"{', '.join(map(str, gone))} that the topic no longer has (it has {has})")
    for p in sorted(set(expected) & partitions):
        want = expected[p]
        if p in end and end[p] < want:
            found.append(f"{topic}[{p}]: the log expects next offset {want} but the topic "
                         f"holds offsets {begin.get(p, 0)}..{end[p] - 1}"
                         if end[p] > begin.get(p, 0) else
                         f"{topic}[{p}]: the log expects next offset {want} but the partition "
                         f"is empty (next offset {end[p]})")
        elif p in begin and begin[p] > want:
            found.append(f"{topic}[{p}]: the log expects next offset {want} but the topic's "
                         f"first offset is {begin[p]} (offsets {want}..{begin[p] - 1} are gone)")
    if not found:
        return None
    return (f"topic {topic} was recreated or truncated since the log under {log_dir} was "
            f"written: {'; '.join(found)}. Going on would skip or repeat messages, so nothing "
            f"was read. Ingest into a new data directory (--data NEW_DIR) to start a new log "
            f"from the topic as it is, or restore the topic (or name the right one with "
            f"--topic) and run ingest again.")


def check_topic(consumer: KafkaConsumer, *, topic: str, log: LogWriter, log_dir: Path,
                only: set[int] | None = None) -> None:
    """Refused when the topic went backwards against the log (KafkaError when the broker
    cannot answer). ``only`` limits the offset checks to these partitions."""
    expected = log_partitions(log_dir, log, topic)
    if not expected:
        return
    parts = consumer.partitions_for_topic(topic)
    if parts is None:
        # Not in the cached metadata yet: ask the broker.
        consumer.topics()
        parts = consumer.partitions_for_topic(topic)
    if parts is None:
        raise Refused(
            f"topic {topic} does not exist any more, but the log under {log_dir} holds its "
            f"partitions {', '.join(map(str, sorted(expected)))}: it was deleted. Ingest into a "
            "new data directory (--data NEW_DIR) or restore the topic, then run ingest again.")
    tps = [TopicPartition(topic, p) for p in sorted(set(expected) & set(parts))
           if only is None or p in only]
    begin = {tp.partition: o for tp, o in
             consumer.beginning_offsets(tps, timeout_ms=KAFKA_TIMEOUT_MS).items()} if tps else {}
    end = {tp.partition: o for tp, o in
           consumer.end_offsets(tps, timeout_ms=KAFKA_TIMEOUT_MS).items()} if tps else {}
    problem = offsets_problem(topic=topic, log_dir=log_dir, expected=expected,
                              partitions=set(parts), begin=begin, end=end)
    if problem:
        raise Refused(problem)
    last = {tp: (expected[tp.partition] - 1, digest) for tp in tps
            if (digest := log.last_message(topic, tp.partition)) is not None
            and begin.get(tp.partition, 0) < expected[tp.partition] <= end.get(tp.partition, 0)}
    found = _messages_at(consumer, {tp: offset for tp, (offset, _) in last.items()})
    for tp, (offset, digest) in sorted(last.items()):
        if tp in found and message_digest(*found[tp]) != digest:
            raise Refused(
                f"topic {topic} was recreated and filled again: {topic}[{tp.partition}]@"
                f"{offset} is not the message the log under {log_dir} took at that offset "
                f"(its signed checkpoint holds another digest), so the offsets the log "
                "resumes from belong to another topic's history. Going on would skip "
                "messages, so nothing was read. Ingest into a new data directory (--data "
                "NEW_DIR) to start a new log from the topic as it is, or restore the topic "
                "(or name the right one with --topic) and run ingest again.")


def _messages_at(consumer: KafkaConsumer, wanted: dict[TopicPartition, int]
                 ) -> dict[TopicPartition, tuple[bytes | None, bytes | None]]:
    """(key, value) of the message at each partition's wanted offset, read by one consumer
    of its own (outside the group); a partition whose message is not there (a transaction
    marker, say) is left out."""
    if not wanted:
        return {}
    probe = KafkaConsumer(bootstrap_servers=consumer.config["bootstrap_servers"],
                          group_id=None, enable_auto_commit=False, client_id="catwalk-probe",
                          isolation_level="read_committed",
                          request_timeout_ms=KAFKA_TIMEOUT_MS + 1_000)
    found: dict[TopicPartition, tuple[bytes | None, bytes | None]] = {}
    try:
        probe.assign(list(wanted))
        for tp, offset in wanted.items():
            probe.seek(tp, offset)
        pending = set(wanted)
        deadline = time.monotonic() + KAFKA_TIMEOUT_MS / 1000
        while pending and time.monotonic() < deadline:
            for tp, batch in probe.poll(timeout_ms=500).items():
                if tp in pending and batch:
                    pending.discard(tp)
                    probe.pause(tp)
                    if batch[0].offset == wanted[tp]:
                        found[tp] = (batch[0].key, batch[0].value)
        return found
    finally:
        probe.close()


class _ResumeFromLog(ConsumerRebalanceListener):  # type: ignore[misc]
    """On assignment, raise each partition's fencing epoch (ingest/fence.py), then continue
    from the offsets the log holds (the log is the truth): raised first, so that an older
    owner can append nothing after the offsets read. The partitions stay paused until the
    main loop has checked them against the log; one whose epoch could not be raised yet
    (its lock held by a worker stopped while appending) stays paused in :attr:`unfenced`
    and is tried again at every turn of the main loop."""

    def __init__(self, consumer: KafkaConsumer, log: LogWriter, fences: Fences,
                 say: Callable[[str], None]) -> None:
        self.consumer, self.log, self.fences, self.say = consumer, log, fences, say
        self.unchecked: set[TopicPartition] = set()
        self.unfenced: set[TopicPartition] = set()
        self.failure: FenceError | None = None
        """A fence file that cannot be used, met in a callback (whose exceptions the Kafka
        client swallows): the main loop raises it."""
        self.before_revoke: Callable[[KafkaConsumer], None] | None = None
        """Writes the batch in flight: a partition is given up only once the log holds
        everything polled from it."""
        self.changes = 0
        """How many times the assignment changed: what was found caught up before a change
        says nothing about the partitions after it."""

    def on_partitions_revoked(self, revoked: Any) -> None:
        self.changes += 1
        if self.before_revoke is not None:
            self.before_revoke(self.consumer)
        self.unchecked -= set(revoked)
        self.unfenced -= set(revoked)
        for tp in revoked:
            self.fences.give_up(tp.topic, tp.partition)

    def on_partitions_assigned(self, assigned: Any) -> None:
        self.changes += 1
        if assigned:
            self.consumer.pause(*assigned)
        self.take(set(assigned))

    def take(self, partitions: set[TopicPartition], wait_s: float | None = None) -> None:
        """Raise the partitions' epochs (each lock waited for at most ``wait_s``, default the
        fences'), then seek each one raised to where the log (any chain) stopped; those whose
        lock was not had wait in :attr:`unfenced`."""
        raised: dict[TopicPartition, int] = {}
        for tp in sorted(partitions):
            try:
                raised[tp] = self.fences.raise_epoch(tp.topic, tp.partition, wait_s)
            except FenceBusy as exc:
                if tp not in self.unfenced:
                    self.say(f"ingest: {tp.topic}[{tp.partition}] is not read yet: {exc}; "
                             "tried again until it is had")
                self.unfenced.add(tp)
                continue
            except FenceError as exc:
                self.failure = self.failure or exc
                continue
            self.unfenced.discard(tp)
        if not raised:
            return
        self.log.refresh_peers()  # where the worker that held them stopped
        for tp in raised:
            nxt = self.log.next_offset(tp.topic, tp.partition)
            if nxt is None:
                self.consumer.seek_to_beginning(tp)
            else:
                self.consumer.seek(tp, nxt)
        self.unchecked |= set(raised)


def _say(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def _brief(exc: BaseException) -> str:
    text = str(exc) or type(exc).__name__
    return f"{type(exc).__name__}: {text}" if type(exc).__name__ not in text else text


class _Session:
    """One consumer and its listener; thrown away whole when the broker is lost."""

    def __init__(self, consumer: KafkaConsumer, topic: str, log: LogWriter, fences: Fences,
                 say: Callable[[str], None]) -> None:
        self.consumer = consumer
        self.listener = _ResumeFromLog(consumer, log, fences, say)
        consumer.subscribe([topic], listener=self.listener)

    def close(self) -> None:
        _close(self.consumer)


def _close(consumer: KafkaConsumer) -> None:
    try:
        consumer.close(autocommit=False, timeout_ms=2_000)
    except Exception as exc:  # closing a consumer of a dead broker: nothing to save
        _say(f"ingest: closing the Kafka consumer: {_brief(exc)}")


def run(
    *,
    connect: Callable[[], KafkaConsumer],
    topic: str,
    log: LogWriter,
    log_dir: Path,
    until_idle: float | None,
    progress: Callable[[IngestStats, bool], None],
    index: EventIndex | None = None,
    poll_ms: int = 500,
    say: Callable[[str], None] = _say,
    fences: Fences | None = None,
) -> IngestStats:
    """Poll, judge, append, fsync, commit, until stopped (SIGTERM/SIGINT) or idle and caught up.

    With ``until_idle``, ingest stops once no message came for that many seconds and every
    partition of the topic is read to its end, by this consumer or by another worker's chain
    (:func:`_caught_up`), probed after the last poll: partitions that a stopped worker still
    holds are waited for (one line says so), never left behind.

    ``fences``: the partitions' fencing epochs (ingest/fence.py; by default those of the
    data directory ``log_dir`` belongs to, under its worker's name): a partition is written
    only under the epoch this worker raised when the group assigned it.

    ``connect`` makes a consumer (again after a lost broker). Refused when the topic went
    backwards against the log; LogError/OSError when the log cannot be written; a broker
    that cannot be reached is retried, never raised."""
    stats = IngestStats()
    stopping = False
    index = index if index is not None else EventIndex.from_log(log_dir)
    own_fences = fences is None
    fence = fences if fences is not None else fences_for(log_dir, say=say)

    def stop(signum: int, frame: Any) -> None:
        nonlocal stopping
        stopping = True

    def sleep(seconds: float) -> None:
        deadline = time.monotonic() + seconds
        while not stopping and time.monotonic() < deadline:
            time.sleep(min(0.1, max(0.0, deadline - time.monotonic())))

    previous = {s: signal.signal(s, stop) for s in (signal.SIGTERM, signal.SIGINT)}
    heap = _Heap()
    judges = Judges(say)
    pending: _Batch | None = None
    session: _Session | None = None
    lost_since: float | None = None
    retries = 0
    last_data = time.monotonic()
    last_report = 0.0
    reported_batches = 0
    last_probe = time.monotonic()
    caught_up: tuple[_ResumeFromLog, int] | None = None
    """The last probe found everything read: with this listener, after this many changes of
    the assignment (a later change, or a new consumer, makes it say nothing)."""
    waiting_for: tuple[TopicPartition, ...] = ()

    def drain(kc: KafkaConsumer | None) -> None:
        """Write the batch in flight (before a rebalance, a lost broker, the end, or when
        nothing more came): the log must hold it before anyone resumes from the log."""
        nonlocal pending
        batch, pending = pending, None
        if batch is not None:
            with collector_paused():
                _finish(batch, kc=kc, log=log, index=index, stats=stats, say=say,
                        fences=fence)
            heap.settle()

    def lost(exc: BaseException, what: str) -> None:
        """The broker is gone (or the consumer stopped working): drop the consumer and wait."""
        nonlocal session, lost_since, retries
        drain(None)
        stats.kafka_errors += 1
        if session is not None:
            session.close()
            session = None
        if lost_since is None:
            lost_since = time.monotonic()
        retries += 1
        wait = min(RETRY_FIRST_S * 2 ** (retries - 1), RETRY_MAX_S)
        say(f"ingest: {what} ({_brief(exc)}); retry {retries} in {wait:.1f} s. Nothing is "
            "lost: ingest goes on from the log's offsets when Kafka answers "
            "(check the broker with `make kafka-status`)")
        sleep(wait)

    try:
        while not stopping:
            if session is None:
                try:
                    kc = connect()
                except KafkaError as exc:
                    lost(exc, "cannot reach Kafka")
                    continue
                try:
                    check_topic(kc, topic=topic, log=log, log_dir=log_dir)
                    session = _Session(kc, topic, log, fence, say)
                    session.listener.before_revoke = drain
                except KafkaError as exc:
                    _close(kc)
                    lost(exc, "cannot reach Kafka")
                    continue
                except BaseException:
                    _close(kc)
                    raise
                if lost_since is not None:
                    stats.reconnects += 1
                    say(f"ingest: Kafka answers again after {retries} "
                        f"retr{'y' if retries == 1 else 'ies'} "
                        f"({time.monotonic() - lost_since:.1f} s); going on from the log's "
                        "offsets")
                lost_since, retries = None, 0
                last_data = last_probe = time.monotonic()
                caught_up = None
            kc = session.consumer
            listener = session.listener
            try:
                if listener.unfenced:  # briefly: the other partitions go on meanwhile
                    listener.take(set(listener.unfenced), RETAKE_WAIT_S)
                if listener.unchecked:
                    check_topic(kc, topic=topic, log=log, log_dir=log_dir,
                                only={tp.partition for tp in listener.unchecked})
                    kc.resume(*listener.unchecked)
                    listener.unchecked.clear()
                polled = kc.poll(timeout_ms=poll_ms)
                if listener.failure is not None:
                    raise listener.failure
            except (OffsetOutOfRangeError, NoOffsetForPartitionError) as exc:
                # The position the log gave is not in the partition any more.
                check_topic(kc, topic=topic, log=log, log_dir=log_dir)
                raise Refused(f"topic {topic}: a position the log expects is out of the "
                              f"topic's range ({_brief(exc)}): it was recreated or truncated. "
                              "Ingest into a new data directory (--data NEW_DIR) or restore "
                              "the topic, then run ingest again.") from exc
            except KafkaError as exc:
                lost(exc, "Kafka error")
                continue
            messages = sorted(
                (m for batch in polled.values() for m in batch),
                key=lambda m: (m.topic, m.partition, m.offset),
            )
            if messages:
                # Pipelined: the verdicts of the batch in flight are in (the helper judged
                # it while this one was polled); the new batch goes to the helper, and the
                # one in flight is written while the helper judges the new one.
                if pending is not None:
                    pending.ticket.verdicts()
                with collector_paused():
                    batch = _prepare(messages, log=log, judges=judges)
                drain(kc)
                pending = batch
                last_data = last_probe = time.monotonic()
                caught_up = None
            else:
                drain(kc)
            now = time.monotonic()
            if now - last_report >= 2.0 and stats.batches != reported_batches:
                progress(stats, False)
                last_report, reported_batches = now, stats.batches
            idle = until_idle is not None and now - last_data >= until_idle
            probed = False
            if not messages and now - last_probe >= PROBE_EVERY_S:
                last_probe, probed = now, True
                changes = listener.changes
                try:
                    unread = _caught_up(kc, topic=topic, log=log,
                                        stalled=now - last_data >= STALL_S)
                except KafkaError as exc:
                    lost(exc, "lost the Kafka broker")
                    continue
                caught_up = (listener, changes) if unread.caught_up else None
                if idle and not unread.here and unread.elsewhere \
                        and unread.elsewhere != waiting_for:
                    waiting_for = unread.elsewhere
                    say(_waiting_line(unread, idle_s=now - last_data, consumer=kc))
            if idle and caught_up == (listener, listener.changes) and not listener.unchecked \
                    and not listener.unfenced:
                # Stop only on what holds now: probed since the last poll (a poll is where
                # the assignment changes), else probed once more.
                if probed:
                    break
                changes = listener.changes
                try:
                    final = _caught_up(kc, topic=topic, log=log, stalled=False)
                except KafkaError as exc:
                    lost(exc, "lost the Kafka broker")
                    continue
                if final.caught_up and listener.changes == changes:
                    break
                caught_up = None
        drain(session.consumer if session is not None else None)
    finally:
        judges.close()
        gc.unfreeze()
        for s, handler in previous.items():
            signal.signal(s, handler)
        if session is not None:
            session.close()
        if own_fences:
            fence.close()
        progress(stats, True)
    return stats


class _Heap:
    """Keep the collector off what ingest holds for good. After each batch, what survived
    it (the event index's new entries, the Kafka client's state) is moved out of the
    collector's reach (``gc.freeze``) once the young generations were collected, so the
    collections that polling triggers walk only young objects instead of the whole growing
    index (about a sixth of ingest's time, bench/ingest_vs_bare.py). Every
    :data:`FULL_EVERY` batches everything is given back and collected once, so no reference
    cycle lives for long."""

    FULL_EVERY = 200

    def __init__(self) -> None:
        self.batches = 0

    def settle(self) -> None:
        self.batches += 1
        if self.batches % self.FULL_EVERY == 0:
            gc.unfreeze()
            gc.collect()
        else:
            gc.collect(1)
        gc.freeze()


@dataclass(kw_only=True)
class _Batch:
    """One poll's messages not yet in the log, handed to the judges."""

    fresh: list[Received]
    ticket: Ticket


def _prepare(messages: list[Any], *, log: LogWriter, judges: Judges) -> _Batch | None:
    """The messages of one poll that the log does not hold yet, handed to the judges."""
    log.refresh_peers()  # a message another worker's chain holds is not written twice
    fresh = []
    expect: dict[tuple[str, int], int | None] = {}
    for m in messages:
        where = (m.topic, m.partition)
        if where not in expect:
            expect[where] = log.next_offset(m.topic, m.partition)
        expected = expect[where]
        if expected is not None and m.offset < expected:
            continue  # already in the log: a redelivery after a rebalance
        fresh.append(Received(
            topic=m.topic, partition=m.partition, offset=m.offset,
            timestamp_ms=m.timestamp, key=m.key, value=m.value,
            headers=headers_of(m.headers),
        ))
    if not fresh:
        return None
    return _Batch(fresh=fresh, ticket=judges.submit([(r.key, r.value) for r in fresh]))


def _finish(batch: _Batch, *, kc: KafkaConsumer | None, log: LogWriter, index: EventIndex,
            stats: IngestStats, say: Callable[[str], None], fences: Fences) -> None:
    """Take a batch's verdicts, append it as one segment, commit the offsets; all of it
    holding the fence locks of the batch's partitions (ingest/fence.py). A partition this
    worker no longer holds the epoch of is fenced: its messages are dropped from the batch,
    neither written nor committed (:func:`_fenced`)."""
    with fences.hold({(r.topic, r.partition) for r in batch.fresh}) as (epochs, fenced):
        verdicts = list(zip(batch.fresh, batch.ticket.verdicts(), strict=True))
        if fenced:
            verdicts = [(r, v) for r, v in verdicts if (r.topic, r.partition) not in fenced]
            _fenced(fenced, batch, kc=kc, log=log, stats=stats, say=say)
        _write(verdicts, epochs, kc=kc, log=log, index=index, stats=stats, say=say)


def _fenced(fenced: dict[tuple[str, int], Fenced], batch: _Batch, *, kc: KafkaConsumer | None,
            log: LogWriter, stats: IngestStats, say: Callable[[str], None]) -> None:
    """Say what was dropped and why; a partition another worker took is paused until the
    group's next assignment (the consumer rejoins the group at its next poll, as it learns
    that its session ended), one whose lock was not had in time is read again from where the
    log stands."""
    for (topic, partition), why in sorted(fenced.items()):
        dropped = [r for r in batch.fresh if (r.topic, r.partition) == (topic, partition)]
        stats.fenced += len(dropped)
        say(f"ingest: FENCED {topic}[{partition}]: {why.why}. Its {len(dropped):,} message"
            f"{'s' if len(dropped) != 1 else ''} of this batch ({dropped[0].coordinates}"
            f"{'..' + str(dropped[-1].offset) if len(dropped) > 1 else ''}) are dropped: "
            "neither written nor committed (the partition's owner writes them)")
        if kc is None:
            continue
        tp = TopicPartition(topic, partition)
        try:
            if tp not in kc.assignment():
                continue  # the group took it away already: nothing to set aside
            if why.taken:
                kc.pause(tp)
            log.refresh_peers()
            nxt = log.next_offset(topic, partition)
            if nxt is not None:
                kc.seek(tp, nxt)
        except (KafkaError, AssertionError, ValueError) as exc:
            say(f"ingest: {topic}[{partition}]: could not be set aside ({_brief(exc)}); the "
                "group's next assignment settles it")


def _write(verdicts: list[tuple[Received, Verdict]], epochs: dict[str, int], *,
           kc: KafkaConsumer | None, log: LogWriter, index: EventIndex, stats: IngestStats,
           say: Callable[[str], None]) -> None:
    accepted: list[Received] = []
    keys: list[bytes | None] = []
    quarantined: list[Quarantined] = []
    last: dict[tuple[str, int], int] = {}
    conflicts = Conflicts(index)
    for received, (reason, key) in verdicts:
        m = received
        if reason is None and received.value is not None:
            if key is None:  # judged without the batch decoder: read the id here
                key = event_key(received.value)
            reason = conflicts.check(received.value, m.topic, m.partition, m.offset, key)
            if reason is not None:
                stats.conflicts += 1
        if reason is None:
            accepted.append(received)
            keys.append(key)
        else:
            quarantined.append(Quarantined(message=received, reason=reason))
            kind = reason.split(":")[0]
            if kind.startswith("conflicting event id"):
                kind = "conflicting event id"
            stats.reasons[kind] = stats.reasons.get(kind, 0) + 1
            say(f"ingest: quarantined {received.coordinates}: {reason}")
        last[(m.topic, m.partition)] = m.offset
    if not accepted and not quarantined:
        return
    log.append(accepted, quarantined, epochs)
    conflicts.commit((r.value, r.topic, r.partition, r.offset, k)
                     for r, k in zip(accepted, keys, strict=True) if r.value is not None)
    stats.appended += len(accepted)
    stats.quarantined += len(quarantined)
    stats.batches += 1
    if kc is None:
        return
    commit = {TopicPartition(topic, partition): OffsetAndMetadata(offset + 1, "", -1)
              for (topic, partition), offset in last.items()}
    try:
        # Without waiting for the broker's answer: the log, not Kafka, holds the offsets
        # ingest resumes from (they are signed in every segment's checkpoint), so a commit
        # that is lost or late costs nothing but a seek.
        kc.commit_async(commit)
    except KafkaError as exc:
        say(f"ingest: offset commit failed ({_brief(exc)}); the log holds the offsets")


class _Stalled(KafkaError):  # type: ignore[misc]
    """Messages are waiting but the consumer delivers none (see the module docstring)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class _Unread:
    """The partitions of the topic that are not read to their ends (none: caught up)."""

    here: tuple[TopicPartition, ...] = ()
    """Assigned to this consumer, its position before the partition's end."""
    elsewhere: tuple[TopicPartition, ...] = ()
    """Not assigned to this consumer, and no chain of the log holds them to their ends:
    another member of the group holds them, or will once the group rebalances."""
    topic_unknown: bool = False
    """The broker's metadata does not name the topic's partitions (yet)."""

    @property
    def caught_up(self) -> bool:
        return not (self.here or self.elsewhere or self.topic_unknown)


def _caught_up(consumer: KafkaConsumer, *, topic: str, log: LogWriter,
               stalled: bool) -> _Unread:
    """What of ``topic`` is not read to its end, as the broker has it now: every partition of
    the topic, not only those assigned to this consumer, is read to the end it has at this
    call when this consumer's position is there or the log (any worker's chain) holds it
    to there. A member of the group that stopped without leaving it (ingest is a static
    member, KIP-345) keeps its partitions until its session times out, so a worker that
    looked only at its own assignment would stop with the others' messages unread.

    KafkaError when the broker does not answer, or (``stalled``) when messages wait in an
    assigned partition but none came for :data:`STALL_S`."""
    assigned = consumer.assignment()
    parts = consumer.partitions_for_topic(topic)
    if parts is None:
        consumer.topics()  # not in the cached metadata yet: ask the broker
        parts = consumer.partitions_for_topic(topic)
    if parts is None:
        return _Unread(topic_unknown=True)
    tps = sorted({TopicPartition(topic, p) for p in parts} | set(assigned))
    # The ends first, what is read second: whatever the ends count is read by then.
    ends = consumer.end_offsets(tps, timeout_ms=KAFKA_TIMEOUT_MS)
    log.refresh_peers()
    here, elsewhere, unseen = [], [], []
    for tp in tps:
        held = log.next_offset(tp.topic, tp.partition)
        if held is not None and held >= ends[tp]:
            continue
        if tp in assigned:
            position = consumer.position(tp, timeout_ms=KAFKA_TIMEOUT_MS)
            if position is None or position < ends[tp]:  # None: the seek is not done yet
                here.append(tp)
        elif held is None:
            unseen.append(tp)
        else:
            elsewhere.append(tp)
    if unseen:  # a partition the log never saw has nothing to read if it holds nothing
        begin = consumer.beginning_offsets(unseen, timeout_ms=KAFKA_TIMEOUT_MS)
        elsewhere += [tp for tp in unseen if begin[tp] < ends[tp]]
    if here and stalled and not set(here) <= consumer.paused():
        where = ", ".join(f"{tp.topic}[{tp.partition}]" for tp in here[:3])
        raise _Stalled(f"messages wait in {where} but the consumer delivered none for "
                       f"{STALL_S:.0f} s")
    return _Unread(here=tuple(here), elsewhere=tuple(sorted(elsewhere)))


def _waiting_line(unread: _Unread, *, idle_s: float, consumer: KafkaConsumer) -> str:
    """Why an idle ingest does not stop yet: partitions another member of the group holds."""
    names = ", ".join(f"{tp.topic}[{tp.partition}]" for tp in unread.elsewhere[:6])
    if len(unread.elsewhere) > 6:
        names += f" and {len(unread.elsewhere) - 6} more"
    many = len(unread.elsewhere) > 1
    session_s = consumer.config["session_timeout_ms"] / 1000
    return (f"ingest: idle for {idle_s:.0f} s, but {names} {'are' if many else 'is'} not in "
            f"the log to {'their ends' if many else 'its end'} and assigned to another member "
            f"of consumer group {consumer.config['group_id']}: waiting for "
            f"{'them' if many else 'it'} before stopping. A worker that stopped keeps its "
            f"partitions until its session times out ({session_s:.0f} s); another ingest of "
            "this group writing into another data directory keeps them for good (give each "
            "data directory its own --group). "
            "Stopping now (Ctrl-C) loses nothing: the next ingest goes on from the log.")


def open_log(data_dir: Path, signing_key: Path | None = None,
             worker: str | None = None) -> LogWriter:
    """The chain of ``data_dir`` this ingest writes (the lone ingest's, or worker
    ``worker``'s: schemas.logformat.chain_of), signing with ``signing_key`` (ingest/keys.py
    for the default), aware of what the other workers' chains hold (ingest/peers.py).
    LogError when another writer holds the chain or a last checkpoint cannot be trusted,
    CheckpointError when the key cannot be read, ValueError for a bad worker name."""
    chain = chain_of(data_dir, worker)
    signer = load_signer(data_dir, signing_key)
    log = LogWriter(chain.log, chain.quarantine, signer=signer,
                    checkpoint_dir=chain.checkpoints)
    log.peer_offsets = PeerOffsets(data_dir, chain, signer.verifier)
    return log


__all__ = ["IngestStats", "LogError", "Refused", "check_topic", "judge", "offsets_problem",
           "open_log", "run"]
