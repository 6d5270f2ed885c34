"""The only place that talks to Kafka: where the cluster is, the topic, producer and consumer.

The cluster is ``KAFKA_BOOTSTRAP`` when set (an existing cluster: nothing is started), else
the local broker that ``deploy/kafka/kafka.sh up`` records in ``.kafka/run/bootstrap``.

The audit topic's shape is a setting, never a constant: partitions, replication factor and
``min.insync.replicas`` come from the command line or from ``CATWALK_TOPIC_PARTITIONS``,
``CATWALK_REPLICATION_FACTOR`` and ``CATWALK_MIN_INSYNC_REPLICAS`` (:func:`topic_settings`);
they apply when the topic is created.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from pathlib import Path

from kafka import KafkaAdminClient, KafkaConsumer, KafkaProducer
from kafka.errors import TopicAlreadyExistsError

REPO = Path(__file__).resolve().parent.parent
DEFAULT_TOPIC = "round-events"

DEFAULT_PARTITIONS = 3
DEFAULT_REPLICATION = 1
"""One copy: the local broker is a single node. A production cluster wants 3 (and
min.insync.replicas 2, so that an acknowledged event survives the loss of a broker)."""
DEFAULT_MIN_INSYNC = 1
ENV_PARTITIONS = "CATWALK_TOPIC_PARTITIONS"
ENV_REPLICATION = "CATWALK_REPLICATION_FACTOR"
ENV_MIN_INSYNC = "CATWALK_MIN_INSYNC_REPLICAS"

TOPIC_SETTINGS_HELP = (
    f"the audit topic, when it has to be created: PARTITIONS,REPLICATION_FACTOR,"
    f"MIN_INSYNC_REPLICAS (default ${ENV_PARTITIONS} or {DEFAULT_PARTITIONS}, "
    f"${ENV_REPLICATION} or {DEFAULT_REPLICATION}, ${ENV_MIN_INSYNC} or {DEFAULT_MIN_INSYNC}; "
    "a cluster of 3 brokers wants 3,3,2 or more partitions). An existing topic is not altered"
)
"""The --help text of the option that sets the topic's shape (ingest and the simulator)."""

SESSION_TIMEOUT_MS = 10_000
"""How long the group coordinator waits for a silent ingest before handing its partitions to
another member. A restarted ingest does not wait for it: it rejoins under the same static
``group.instance.id`` and takes its partitions back at once (KIP-345)."""
BOOTSTRAP_TIMEOUT_MS = 5_000
"""How long a client waits for a first answer from the cluster before saying so."""
PRODUCER_MAX_BLOCK_MS = 10_000
"""The longest ``send`` may block waiting for metadata or buffer space (a dead broker)."""
PRODUCER_DELIVERY_TIMEOUT_MS = 30_000
"""The longest a message may wait for its acknowledgement, retries included."""


class NoClusterError(RuntimeError):
    """No Kafka cluster is configured or running."""


class SettingsError(ValueError):
    """A topic setting that cannot be used; the message names the setting and the value."""


def bootstrap_servers(explicit: str | None = None) -> str:
    """Where Kafka is: the argument, else KAFKA_BOOTSTRAP, else the local broker's record."""
    if explicit:
        return explicit
    env = os.environ.get("KAFKA_BOOTSTRAP")
    if env:
        return env
    recorded = REPO / ".kafka" / "run" / "bootstrap"
    if recorded.is_file():
        return recorded.read_text().strip()
    raise NoClusterError(
        "no Kafka cluster: start the local one with `make kafka-up`, "
        "or set KAFKA_BOOTSTRAP=host:port to use an existing cluster"
    )


@dataclass(frozen=True, slots=True, kw_only=True)
class TopicSettings:
    partitions: int = DEFAULT_PARTITIONS
    replication_factor: int = DEFAULT_REPLICATION
    min_insync_replicas: int = DEFAULT_MIN_INSYNC

    def __str__(self) -> str:
        return (f"{self.partitions} partitions, replication factor {self.replication_factor}, "
                f"min.insync.replicas {self.min_insync_replicas}")


def _number(name: str, text: str) -> int:
    try:
        value = int(text.strip())
    except ValueError:
        raise SettingsError(f"{name} must be a whole number, got {text!r}") from None
    if value < 1:
        raise SettingsError(f"{name} must be at least 1, got {value}")
    return value


def topic_settings(option: str | None = None,
                   environ: dict[str, str] | None = None) -> TopicSettings:
    """The topic's shape: ``option`` ("P,R,M"; an empty part keeps the environment's or the
    default value), else the environment, else the defaults. SettingsError names what is
    wrong."""
    env = os.environ if environ is None else environ
    names = (ENV_PARTITIONS, ENV_REPLICATION, ENV_MIN_INSYNC)
    defaults = (DEFAULT_PARTITIONS, DEFAULT_REPLICATION, DEFAULT_MIN_INSYNC)
    values = [_number(n, env[n]) if env.get(n, "").strip() else d
              for n, d in zip(names, defaults, strict=True)]
    if option is not None:
        parts = option.split(",")
        if len(parts) > 3:
            raise SettingsError(f"--topic-settings takes PARTITIONS,REPLICATION_FACTOR,"
                                f"MIN_INSYNC_REPLICAS, got {option!r}")
        for i, part in enumerate(parts):
            if part.strip():
                values[i] = _number(("partitions", "replication factor",
                                     "min.insync.replicas")[i] + " in --topic-settings", part)
    settings = TopicSettings(partitions=values[0], replication_factor=values[1],
                             min_insync_replicas=values[2])
    if settings.min_insync_replicas > settings.replication_factor:
        raise SettingsError(
            f"min.insync.replicas {settings.min_insync_replicas} is more than the replication "
            f"factor {settings.replication_factor}: no acknowledged write could ever succeed")
    return settings


def ensure_topic(servers: str, topic: str, settings: TopicSettings | None = None, *,
                 partitions: int | None = None) -> bool:
    """Create the audit topic if it does not exist (kept forever); True if it was created.
    ``settings`` default to :func:`topic_settings`; ``partitions`` overrides theirs."""
    settings = settings or topic_settings()
    if partitions is not None:
        settings = TopicSettings(partitions=partitions,
                                 replication_factor=settings.replication_factor,
                                 min_insync_replicas=settings.min_insync_replicas)
    with KafkaAdminClient(bootstrap_servers=servers, client_id="catwalk-admin",
                          request_timeout_ms=15_000,
                          bootstrap_timeout_ms=BOOTSTRAP_TIMEOUT_MS) as admin:
        try:
            admin.create_topics(
                {
                    topic: {
                        "num_partitions": settings.partitions,
                        "replication_factor": settings.replication_factor,
                        "configs": {
                            "retention.ms": "-1",
                            "cleanup.policy": "delete",
                            "min.insync.replicas": str(settings.min_insync_replicas),
                        },
                    }
                },
                wait_for_metadata=True,
            )
        except TopicAlreadyExistsError:
            return False
    return True


def producer(servers: str) -> KafkaProducer:
    """Idempotent, acks=all producer (kafka-python 3 defaults) that never blocks for ever:
    ``send`` gives up after :data:`PRODUCER_MAX_BLOCK_MS`, a delivery after
    :data:`PRODUCER_DELIVERY_TIMEOUT_MS`."""
    return KafkaProducer(
        bootstrap_servers=servers,
        client_id="catwalk-table",
        linger_ms=5,
        batch_size=65536,
        compression_type="lz4",
        max_block_ms=PRODUCER_MAX_BLOCK_MS,
        bootstrap_timeout_ms=BOOTSTRAP_TIMEOUT_MS,
        request_timeout_ms=10_000,
        delivery_timeout_ms=PRODUCER_DELIVERY_TIMEOUT_MS,
    )


def instance_id(group_id: str, data_dir: Path) -> str:
    """The static group member id of the ingest writing into ``data_dir``: the same after a
    restart (so the group hands the partitions straight back), different for another log."""
    digest = hashlib.sha256(str(data_dir.resolve()).encode()).hexdigest()[:16]
    return f"{group_id[:200]}-{digest}"


FETCH_MIN_BYTES = 64 * 1024
FETCH_WAIT_MS = 200


def consumer(servers: str, group_id: str, group_instance_id: str | None = None) -> KafkaConsumer:
    """Manual-commit consumer: offsets are committed only after the log is fsynced.

    ``auto_offset_reset`` is "none": ingest always seeks to the offsets its log holds, and a
    position the partition no longer has is an error to report, never a reason to jump."""
    return KafkaConsumer(
        bootstrap_servers=servers,
        group_id=group_id,
        group_instance_id=group_instance_id,
        client_id="catwalk-ingest",
        enable_auto_commit=False,
        auto_offset_reset="none",
        isolation_level="read_committed",
        max_poll_records=5000,
        # A trickle of live events: the broker holds a fetch up to FETCH_WAIT_MS for
        # FETCH_MIN_BYTES, so a batch (one log segment, one signed checkpoint) holds a
        # fifth of a second of events instead of one or two; catching up is not slowed
        # (the bytes are there at once).
        fetch_min_bytes=FETCH_MIN_BYTES,
        fetch_max_wait_ms=FETCH_WAIT_MS,
        session_timeout_ms=SESSION_TIMEOUT_MS,
        heartbeat_interval_ms=SESSION_TIMEOUT_MS // 4,
        request_timeout_ms=15_000,
        bootstrap_timeout_ms=BOOTSTRAP_TIMEOUT_MS,
    )
