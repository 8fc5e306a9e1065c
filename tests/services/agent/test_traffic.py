"""RetryingTrafficPublisher: a failed traffic publish is retried in the background, not dropped."""

from __future__ import annotations

import asyncio
import logging

import pytest

from services.agent.traffic import RetryingTrafficPublisher
from shared.contracts.agent_messages import TrafficTurn
from tests.services.sampler.turns import make_turn

pytestmark = pytest.mark.unit


class FlakyPublisher:
    """Fails the first ``failures`` calls (as a NATS outage would), then publishes."""

    def __init__(self, failures: int) -> None:
        self.failures = failures
        self.calls = 0
        self.published: list[TrafficTurn] = []

    async def publish(self, turn: TrafficTurn) -> None:
        self.calls += 1
        if self.calls <= self.failures:
            raise TimeoutError("nats: timeout")
        self.published.append(turn)


async def test_a_healthy_publish_is_inline_and_starts_no_retry() -> None:
    inner = FlakyPublisher(failures=0)
    publisher = RetryingTrafficPublisher(inner, retry_delays_s=(0.0,))
    turn = make_turn("conv-ok")
    await publisher.publish(turn)
    assert inner.published == [turn] and publisher.retrying == 0


async def test_a_failed_publish_is_retried_in_the_background_until_it_lands() -> None:
    inner = FlakyPublisher(failures=2)
    publisher = RetryingTrafficPublisher(inner, retry_delays_s=(0.0, 0.0, 0.0))
    turn = make_turn("conv-flaky")
    await publisher.publish(turn)  # returns at once: the customer is not kept waiting
    assert inner.published == [] and publisher.retrying == 1
    await publisher.aclose()
    assert inner.published == [turn] and inner.calls == 3 and publisher.retrying == 0


async def test_a_turn_that_never_lands_is_logged_as_dropped(caplog: pytest.LogCaptureFixture) -> None:
    inner = FlakyPublisher(failures=10)
    publisher = RetryingTrafficPublisher(inner, retry_delays_s=(0.0, 0.0))
    with caplog.at_level(logging.WARNING, logger="services.agent.traffic"):
        await publisher.publish(make_turn("conv-down"))
        await publisher.aclose()
    assert inner.calls == 3 and inner.published == []
    assert "traffic turn dropped after 3 attempts" in caplog.text


async def test_close_gives_up_on_retries_still_waiting(caplog: pytest.LogCaptureFixture) -> None:
    inner = FlakyPublisher(failures=1)
    publisher = RetryingTrafficPublisher(inner, retry_delays_s=(3600.0,))
    await publisher.publish(make_turn("conv-slow"))
    with caplog.at_level(logging.ERROR, logger="services.agent.traffic"):
        await asyncio.wait_for(publisher.aclose(timeout_s=0.01), 5.0)
    assert "1 traffic turns unpublished" in caplog.text
    assert inner.published == []
