"""The ingest service as most of its tests use it: default settings on the test's NATS and Postgres
(a module that needs other limits defines its own ``ingest``), and an ingest key."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from nats.aio.client import Client as NatsClient

from shared.db.api_keys import create_key_sync
from tests.services.ingest.harness import SECRET, Ingest, ingest_settings, serve_ingest
from yardstick.api.roles import Role
from yardstick.api.topology import Topology


@pytest.fixture
def ingest(database_url: str, nats_url: str, topology: Topology, nats_client: NatsClient) -> Iterator[Ingest]:
    with serve_ingest(ingest_settings(database_url, nats_url, topology)) as served:
        yield served


@pytest.fixture
def key(database_url: str) -> str:
    """An ingest key of the default project."""
    return create_key_sync(database_url, SECRET, "burger-bot", Role.INGEST)
