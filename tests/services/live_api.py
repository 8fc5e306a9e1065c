"""The coordinator served over HTTP (uvicorn in a thread) on the test's NATS and Postgres, for tests
that talk to it as a client would: the CLI's, the API contract's. Conftests import the ``api`` fixture."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import pytest
from nats.aio.client import Client as NatsClient

from services.coordinator.app import create_app
from services.coordinator.settings import CoordinatorSettings
from shared.db.api_keys import create_key_sync
from tests.services.served_app import served
from yardstick.api.roles import Role
from yardstick.api.topology import Topology

SECRET = "test-secret-not-for-production"


@dataclass(frozen=True)
class Api:
    url: str
    key: str

    @property
    def env(self) -> dict[str, str]:
        # A wide terminal: at rich's default of 80 columns the tables crop "offline:ask@v1".
        return {"YARDSTICK_API_URL": self.url, "YARDSTICK_API_KEY": self.key, "COLUMNS": "200"}


@pytest.fixture
def api(database_url: str, nats_url: str, topology: Topology, nats_client: NatsClient) -> Iterator[Api]:
    """The coordinator app (configured as tests/services/coordinator/harness.py does) on a real port.

    ``model_validate`` rather than the constructor: nothing is read from the environment or .env."""
    settings = CoordinatorSettings.model_validate(
        {
            "database_url": database_url,
            "nats_url": nats_url,
            "nats_namespace": topology.namespace,
            "dispatch_interval_s": 0.2,
            "YARDSTICK_API_KEY_SECRET": SECRET,
        }
    )
    key = create_key_sync(database_url, SECRET, "cli-tests", Role.OWNER)
    with served(create_app(settings), "the coordinator") as url:
        yield Api(url, key)
