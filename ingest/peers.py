"""What the other ingest workers of a data directory hold (docs/log-integrity.md, "Several
workers").

Several ingest workers in one consumer group share a topic's partitions, each writing its
own chain (schemas.logformat.chains). When the group moves a partition from one worker to
another, the new owner must go on exactly where the old one stopped: it reads the signed
checkpoint in the last segment of every other chain (never an unsigned header) and takes,
for each partition, the highest next offset any chain holds. The group's rebalance protocol
makes the old owner give a partition up only between two polls, after its last batch is
committed; a worker the group dropped while it was frozen (and that has not noticed yet)
is shut out by the partition's fencing epoch, which the new owner raises before it reads
these offsets (ingest/fence.py), so the offset read is final. A worker also reads the
others' offsets before every batch it writes and leaves out messages another chain already
holds.
"""

from __future__ import annotations

from pathlib import Path

from schemas.checkpoint import CheckpointError, Verifier, open_signed
from schemas.logformat import META_CHECKPOINT, Chain, LogError, chains, segment_metadata, segments


class PeerOffsets:
    """The highest signed next offset per ``topic[partition]`` of every chain but ``me``,
    with the digest of the last message that chain took there (its checkpoint's
    ``last_messages``; None when it has none)."""

    def __init__(self, data_dir: Path, me: Chain, verifier: Verifier) -> None:
        self.data_dir, self.me, self.verifier = data_dir, me, verifier
        self._seen: dict[Path, tuple[int, dict[str, tuple[int, str | None]]]] = {}

    def __call__(self) -> dict[str, tuple[int, str | None]]:
        out: dict[str, tuple[int, str | None]] = {}
        for chain in chains(self.data_dir):
            if chain.name == self.me.name:
                continue
            segs = segments(chain.log)
            if not segs:
                continue
            for key, held in self._offsets(chain, segs[-1]).items():
                if held[0] > out.get(key, (-1, None))[0]:
                    out[key] = held
        return out

    def _offsets(self, chain: Chain, last: Path) -> dict[str, tuple[int, str | None]]:
        try:
            stamp = last.stat().st_mtime_ns
        except OSError:
            return {}
        cached = self._seen.get(last)
        if cached is not None and cached[0] == stamp:
            return cached[1]
        text = segment_metadata(last).get(META_CHECKPOINT)
        if text is None:
            raise LogError(f"the {chain.label} ({last}) has no signed checkpoint: its offsets "
                           "cannot be trusted; run `python -m ingest verify`")
        try:
            cp = open_signed(text, self.verifier)
        except CheckpointError as exc:
            raise LogError(f"the {chain.label}'s last checkpoint ({last.name}) does not verify "
                           f"with this worker's key ({exc}): every worker of a data directory "
                           "signs with the same key; run `python -m ingest verify`") from exc
        offsets = {key: (nxt, cp.last_messages.get(key)) for key, nxt in cp.next_offsets.items()}
        self._seen[last] = (stamp, offsets)
        return offsets
