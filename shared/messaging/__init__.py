"""NATS and JetStream as every Yardstick service uses them.

- ``connection``: one connection policy (reconnect forever, health for /healthz);
- ``decoding``: decode a message into its contract or terminate it;
- ``interest``: wait until the server has registered a connection's subscriptions;
- ``acks``: ACK and TERM confirmed by the server;
- ``pull``: the one JetStream pull loop (bind, fetch, pause on errors, stop cleanly);
- ``kv_view``: a KV bucket followed in memory through a watch;
- ``election``: JetStream publishes and calls that ride out a stream leader election;
- ``server_urls``: ``NATS_URL`` as a comma-separated list of servers;
- ``streams``: the streams and durable consumers, declared once;
- ``faststream_broker``: the request/reply brokers of the agent and the search-proxy (import it
  from its module: FastStream is heavy, and the CLI imports this package).
"""

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
