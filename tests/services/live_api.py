"""The coordinator served over HTTP (uvicorn in a thread) on the test's NATS and Postgres, for tests
that talk to it as a client would: the CLI's, the API contract's. Conftests import the ``api`` fixture."""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator
from dataclasses import dataclass

import pytest
import uvicorn
from nats.aio.client import Client as NatsClient

from services.coordinator.app import create_app
from services.coordinator.settings import CoordinatorSettings
from shared.contracts.roles import Role
from shared.contracts.topology import Topology
from shared.db.api_keys import create_key_sync

SECRET = "test-secret-not-for-production"
START_TIMEOUT_S = 30.0


class _Server(uvicorn.Server):
    """Sets ``ready`` once startup (the coordinator's lifespan included) is over, however it ended."""

    def __init__(self, config: uvicorn.Config) -> None:
        super().__init__(config)
        self.ready = threading.Event()

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        try:
            await super().startup(sockets)
        finally:
            self.ready.set()


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
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    server = _Server(uvicorn.Config(create_app(settings), log_config=None, lifespan="on"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    try:
        assert server.ready.wait(START_TIMEOUT_S) and server.started, "the coordinator did not start"
        yield Api(f"http://127.0.0.1:{port}", key)
    finally:
        server.should_exit = True
        thread.join(15)
        sock.close()
