"""The only place that talks to Kafka: where the cluster is, the topic, producer and consumer.

The cluster is ``KAFKA_BOOTSTRAP`` when set (an existing cluster: nothing is started), else
the local broker that ``deploy/kafka/kafka.sh up`` records in ``.kafka/run/bootstrap``.
"""

from __future__ import annotations

import os
from pathlib import Path

from kafka import KafkaAdminClient, KafkaConsumer, KafkaProducer
from kafka.errors import TopicAlreadyExistsError

REPO = Path(__file__).resolve().parent.parent
DEFAULT_TOPIC = "round-events"
TOPIC_PARTITIONS = 3


class NoClusterError(RuntimeError):
    """No Kafka cluster is configured or running."""


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


def ensure_topic(servers: str, topic: str, partitions: int = TOPIC_PARTITIONS) -> bool:
    """Create the audit topic if it does not exist (kept forever); True if it was created."""
    with KafkaAdminClient(bootstrap_servers=servers, client_id="catwalk-admin") as admin:
        try:
            admin.create_topics(
                {
                    topic: {
                        "num_partitions": partitions,
                        "replication_factor": 1,
                        "configs": {"retention.ms": "-1", "cleanup.policy": "delete"},
                    }
                },
                wait_for_metadata=True,
            )
        except TopicAlreadyExistsError:
            return False
    return True


def producer(servers: str) -> KafkaProducer:
    """Idempotent, acks=all producer (kafka-python 3 defaults)."""
    return KafkaProducer(
        bootstrap_servers=servers,
        client_id="catwalk-table",
        linger_ms=5,
        batch_size=65536,
        compression_type="lz4",
    )


def consumer(servers: str, group_id: str) -> KafkaConsumer:
    """Manual-commit consumer: offsets are committed only after the log is fsynced."""
    return KafkaConsumer(
        bootstrap_servers=servers,
        group_id=group_id,
        client_id="catwalk-ingest",
        enable_auto_commit=False,
        auto_offset_reset="earliest",
        isolation_level="read_committed",
        max_poll_records=2000,
    )
