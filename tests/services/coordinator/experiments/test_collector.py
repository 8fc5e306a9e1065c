"""The collector reads a results message of either form: one result, or a worker's batch."""

from __future__ import annotations

from typing import cast

import pytest
from nats.aio.client import Client as NatsClient
from nats.aio.msg import Msg
from nats.js import JetStreamContext
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from services.coordinator.experiments.collector import Collector
from services.coordinator.settings import CoordinatorSettings
from yardstick.api.eval_messages import RESULT_BATCH_HEADER, EvalResult, EvalResultBatch
from yardstick.api.topology import Topology

pytestmark = pytest.mark.unit


def _result(item: str) -> EvalResult:
    return EvalResult(experiment_id="exp", item_id=item, status="ok", output={"text": item})


def _msg(data: bytes, headers: dict[str, str] | None = None) -> Msg:
    return Msg(cast(NatsClient, None), subject="eval.result", reply="$JS.ACK.x", data=data, headers=headers)


async def test_single_results_and_batches_arrive_alike() -> None:
    arrived: list[list[EvalResult]] = []
    collector = Collector(
        cast(NatsClient, None),
        cast(JetStreamContext, None),
        Topology(),
        cast(async_sessionmaker[AsyncSession], None),
        CoordinatorSettings.model_validate(
            {"database_url": "postgresql+asyncpg://unused/x", "YARDSTICK_API_KEY_SECRET": "unused"}
        ),
        on_progress=lambda progressed: None,
        on_arrival=arrived.append,
    )
    batch = EvalResultBatch([_result("b1"), _result("b2"), _result("b3")])
    msgs = [
        _msg(_result("single").model_dump_json().encode()),
        _msg(batch.model_dump_json().encode(), {RESULT_BATCH_HEADER: "3"}),
    ]
    got = await collector.arrived(msgs)
    assert [r.item_id for r in got.results] == ["single", "b1", "b2", "b3"]
    assert got.msgs == msgs  # each message acked once, after all its results are written
    assert arrived == [got.results]
