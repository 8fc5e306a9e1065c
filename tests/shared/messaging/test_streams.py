"""Stream declaration: the server's transient "error creating store for stream" is retried, any
other refusal is raised at once."""

from __future__ import annotations

from typing import Any

import pytest
from nats.js.api import StreamConfig
from nats.js.errors import BadRequestError, ServerError

from shared.messaging import streams

pytestmark = pytest.mark.unit


class FlakyJetStream:
    """Refuses ``add_stream`` with ``errors`` first, then accepts."""

    def __init__(self, *errors: Exception) -> None:
        self.errors = list(errors)
        self.added: list[str | None] = []

    async def add_stream(self, config: StreamConfig) -> None:
        if self.errors:
            raise self.errors.pop(0)
        self.added.append(config.name)


def store_failed() -> ServerError:
    return ServerError(code=500, err_code=streams.STORE_FAILED, description="error creating store for stream")


@pytest.fixture(autouse=True)
def no_waiting(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(streams, "STORE_RETRY_DELAYS_S", (0.0, 0.0, 0.0))


async def test_a_store_failure_is_retried_until_the_stream_exists() -> None:
    js: Any = FlakyJetStream(store_failed(), store_failed())
    await streams._add_stream(js, StreamConfig(name="S"))
    assert js.added == ["S"]


async def test_a_store_failure_that_persists_is_raised() -> None:
    js: Any = FlakyJetStream(*(store_failed() for _ in range(4)))
    with pytest.raises(ServerError):
        await streams._add_stream(js, StreamConfig(name="S"))
    assert js.added == []


async def test_other_refusals_are_not_retried() -> None:
    js: Any = FlakyJetStream(BadRequestError(code=400, err_code=10058, description="name already in use"))
    with pytest.raises(BadRequestError):
        await streams._add_stream(js, StreamConfig(name="S"))
    assert js.errors == []
