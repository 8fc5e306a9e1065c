"""NATS and JetStream as every Yardstick service uses them.

The connection itself is the SDK's (a task worker connects the same way):
``yardstick.api.nats_connection`` (one policy: reconnect forever, health for /healthz),
``yardstick.api.nats_servers`` (``NATS_URL`` as a comma-separated list of servers) and
``yardstick.api.nats_interest`` (wait until the server has registered a connection's subscriptions).
Here:

- ``decoding``: decode a message into its contract or terminate it;
- ``acks``: ACK and TERM confirmed by the server; ``ack_pipeline``: many ACKs, one confirmation;
- ``pull``: the one JetStream pull loop (bind, fetch, pause on errors, stop cleanly);
- ``kv_view``: a KV bucket followed in memory through a watch;
- ``election``: JetStream publishes and calls that ride out a stream leader election;
- ``streams``: the streams and durable consumers, declared once;
- ``faststream_broker``: the request/reply brokers of the agent and the search-proxy (import it
  from its module: FastStream is heavy, and the CLI imports this package).
"""

from shared.messaging.ack_pipeline import AckPipeline
from shared.messaging.acks import settle
from shared.messaging.decoding import decode_or_terminate
from shared.messaging.election import ELECTION_BUDGET_S, publish_once, through_election
from shared.messaging.pull import (
    FETCH_ERROR_PAUSE_S,
    ConsumerNotDeclared,
    PullLoop,
    bind_durable,
    fetch_ready,
    give_back,
)

__all__ = [
    "ELECTION_BUDGET_S",
    "FETCH_ERROR_PAUSE_S",
    "AckPipeline",
    "ConsumerNotDeclared",
    "PullLoop",
    "bind_durable",
    "decode_or_terminate",
    "fetch_ready",
    "give_back",
    "publish_once",
    "settle",
    "through_election",
]
