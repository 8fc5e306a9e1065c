"""The dispatcher's credit keeper when the credits bucket is missing (streams not declared yet)."""

from __future__ import annotations

import asyncio
import logging
from typing import Any, cast

import pytest
from nats.js.errors import BucketNotFoundError

from services.coordinator.experiments.dispatch.credit_grants import CreditGrants
from services.coordinator.experiments.dispatch.dispatcher import Dispatcher
from services.coordinator.settings import CoordinatorSettings
from yardstick.api.topology import Topology

pytestmark = pytest.mark.unit


class MissingBucket:
    """A credit keeper's grants whose bucket never exists; the third sync stops the dispatcher."""

    def __init__(self) -> None:
        self.syncs = 0
        self.dispatcher: Dispatcher | None = None

    async def sync(self, concurrency: dict[str, int]) -> None:
        self.syncs += 1
        if self.syncs == 3 and self.dispatcher is not None:
            self.dispatcher.stop()
        raise BucketNotFoundError


async def test_a_missing_credits_bucket_is_told_once_and_retried(caplog: pytest.LogCaptureFixture) -> None:
    settings = CoordinatorSettings.model_validate(
        {
            "dispatch_interval_s": 0.01,
            "YARDSTICK_API_KEY_SECRET": "s" * 32,
            "database_url": "postgresql://x/y",
        }
    )
    credits = MissingBucket()
    dispatcher = Dispatcher(
        cast(Any, None), Topology(), cast(Any, None), settings, lambda _: None, cast(CreditGrants, credits)
    )
    credits.dispatcher = dispatcher
    with caplog.at_level(logging.WARNING, "services.coordinator.experiments.dispatch.dispatcher"):
        await asyncio.wait_for(dispatcher._credit_keeper(cast(CreditGrants, credits)), 10)
    assert credits.syncs == 3  # retried on every tick
    told = [r for r in caplog.records if r.name == "services.coordinator.experiments.dispatch.dispatcher"]
    assert [r.levelno for r in told] == [logging.WARNING]  # once, without a traceback
    assert "does not exist" in told[0].getMessage() and told[0].exc_info is None


def test_experiments_running_together_take_turns_in_the_task_queue() -> None:
    """An interleaved run and its baseline reach the workers side by side, not one batch first."""
    from services.coordinator.experiments.dispatch.dispatcher import in_turn

    assert in_turn([["a1", "a2", "a3"], ["b1", "b2"], []]) == ["a1", "b1", "a2", "b2", "a3"]
    assert in_turn([[None, 0], [False]]) == [None, False, 0]  # falsy rows are rows too
    assert in_turn([]) == []
