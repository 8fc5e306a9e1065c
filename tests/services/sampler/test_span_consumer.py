"""The sampler on ``traffic.spans`` (real NATS, real Postgres): spans spread over many messages become
whole stored traces, each message acknowledged once its spans are stored; a sampler killed
(SIGKILL) mid-stream loses and doubles nothing: another one takes the redelivered messages."""

from __future__ import annotations

import asyncio
import contextlib
import signal
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import nats
import pytest
from nats.aio.client import Client as NatsClient
from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from services.sampler.project_configs import ProjectConfigs
from services.sampler.span_consumer import SpanConsumer
from services.sampler.trace_handler import TraceHandler
from shared.contracts.span_messages import SpanBatch
from shared.db.session import make_engine, make_session_factory
from shared.db.trace_models import Trace, TraceScore, TraceSpan
from shared.evaluators.loading import process_registry
from shared.messaging.streams import sampler_spans_consumer
from shared.online.application_sampling import ApplicationSampling
from shared.online.sampling_config import SamplingSettings, save_config
from shared.traces import AssemblyPolicy
from tests.services.sampler.spans import batch, trace_spans
from yardstick.api.evaluation import EvaluatorSpec
from yardstick.api.projects import DEFAULT_PROJECT
from yardstick.api.topology import SAMPLER_SPANS_CONSUMER, Topology

pytestmark = [pytest.mark.integration, pytest.mark.timeout(120)]

Sessions = async_sessionmaker[AsyncSession]
REPO_ROOT = Path(__file__).resolve().parents[3]
POLICY = AssemblyPolicy(settle_s=0.2, quiet_s=2.0)
ACK_WAIT_S = 2.0
TRACES = 60
PER_MESSAGE = 10  # traces whose span k rides in one message


def messages(project: str = DEFAULT_PROJECT) -> list[SpanBatch]:
    """Span k of traces [10j, 10j+10) in one message: each message feeds ten traces, each trace four
    messages, the root (k=0) first."""
    spans = [trace_spans(n) for n in range(TRACES)]
    return [
        batch([spans[n][k] for n in range(first, first + PER_MESSAGE)], project=project)
        for first in range(0, TRACES, PER_MESSAGE)
        for k in (1, 2, 3, 0)
    ]


async def configure(sessions: Sessions) -> None:
    async with sessions() as session:
        app = ApplicationSampling(
            rate=1.0, evaluators=[EvaluatorSpec(name="tool_called", args={"tool": "x"})]
        )
        await save_config(
            session, DEFAULT_PROJECT, SamplingSettings(rate=0.0, applications={"support-bot": app})
        )
        await session.commit()


async def publish(nc: NatsClient, topology: Topology, batches: list[SpanBatch]) -> None:
    js = nc.jetstream()
    for b in batches:
        await js.publish(
            topology.traffic_spans, b.model_dump_json().encode(), headers={"Nats-Msg-Id": b.msg_id()}
        )


@asynccontextmanager
async def sampling(
    nc: NatsClient, topology: Topology, sessions: Sessions, **options: int
) -> AsyncIterator[SpanConsumer]:
    handler = TraceHandler(sessions, ProjectConfigs(sessions, refresh_s=0.0), process_registry())
    consumer = SpanConsumer(
        nc,
        topology,
        handler,
        POLICY,
        batch=20,
        fetch_timeout_s=0.2,
        tick_s=0.05,
        ack_wait_s=ACK_WAIT_S,
        **options,  # type: ignore[arg-type]
    )
    await consumer.start()
    try:
        yield consumer
    finally:
        await consumer.stop()


async def stored(sessions: Sessions) -> tuple[int, int, int]:
    async with sessions() as session:
        return (
            (await session.execute(select(func.count()).select_from(Trace))).scalar_one(),
            (await session.execute(select(func.count()).select_from(TraceSpan))).scalar_one(),
            (await session.execute(select(func.count()).select_from(TraceScore))).scalar_one(),
        )


async def settled(nc: NatsClient, topology: Topology) -> bool:
    info = await nc.jetstream().consumer_info(topology.traffic_spans_stream, SAMPLER_SPANS_CONSUMER)
    return info.num_ack_pending == 0 and info.num_pending == 0


async def until_done(consumer: SpanConsumer, nc: NatsClient, topology: Topology, sessions: Sessions) -> None:
    """Wait, part by part, until every trace is stored and the stream is fully acknowledged."""
    while not (await stored(sessions) == (TRACES, 4 * TRACES, TRACES) and await settled(nc, topology)):
        with contextlib.suppress(TimeoutError):  # the last ack lands after the last part
            await asyncio.wait_for(consumer.handler.wait_handled(consumer.handler.handled + 1), 1.0)


async def sampler_process(
    nc: NatsClient, nats_url: str, topology: Topology, sessions: Sessions, database_url: str, main: str
) -> asyncio.subprocess.Process:
    """The messages published (the consumer redelivering after ``ACK_WAIT_S``) and a sampler process
    running ``main`` of this module on them, its stdout piped."""
    await configure(sessions)
    config = sampler_spans_consumer()
    config.ack_wait = ACK_WAIT_S  # redelivery of the killed sampler's messages within the test
    await nc.jetstream().add_consumer(topology.traffic_spans_stream, config)
    await publish(nc, topology, messages())
    return await asyncio.create_subprocess_exec(
        *(
            sys.executable,
            "-c",
            f"from {__name__} import {main}; {main}()",
            nats_url,
            topology.namespace,
            database_url,
        ),
        cwd=REPO_ROOT,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.DEVNULL,
    )


async def test_spans_over_many_messages_become_whole_traces_and_every_message_is_acked(
    nats_client: NatsClient, topology: Topology, session_factory: Sessions
) -> None:
    await configure(session_factory)
    await publish(nats_client, topology, messages())
    stray = batch(trace_spans(99), project="no-such-project")
    await publish(nats_client, topology, [stray])
    await nats_client.publish(topology.traffic_spans, b"not a span batch")
    async with sampling(nats_client, topology, session_factory) as consumer:
        await asyncio.wait_for(until_done(consumer, nats_client, topology, session_factory), 60)
        assert consumer.held == 0
    outcomes = consumer.handler.outcomes
    assert outcomes["stored"] == TRACES and outcomes["unknown_project"] == 1
    assert outcomes["merged"] == 0, "a trace was split although its spans all came within the settle time"
    async with session_factory() as session:
        counts = set((await session.execute(select(Trace.span_count))).scalars())
    assert counts == {4}


def crash_main() -> None:
    """Subprocess: sample until killed, printing how many trace parts it handled after each
    transaction (three parts each, one at a time, so it is killed between transactions)."""
    nats_url, namespace, database_url = sys.argv[1:4]

    async def run() -> None:
        nc = await nats.connect(nats_url)
        sessions = make_session_factory(make_engine(database_url))
        options = {"store_batch": 3, "store_concurrency": 1}
        async with sampling(nc, Topology(namespace=namespace), sessions, **options) as consumer:
            while True:
                await consumer.handler.wait_handled(consumer.handler.handled + 1)
                print(consumer.handler.handled, flush=True)

    asyncio.run(run())


async def test_a_sampler_killed_mid_stream_loses_and_doubles_nothing(
    nats_client: NatsClient, nats_url: str, topology: Topology, session_factory: Sessions, database_url: str
) -> None:
    process = await sampler_process(
        nats_client, nats_url, topology, session_factory, database_url, "crash_main"
    )
    try:
        assert process.stdout is not None
        handled = 0
        while handled < TRACES // 3:  # a third of the traces stored, the rest held or not fetched
            line = await asyncio.wait_for(process.stdout.readline(), 60)
            assert line, "the sampler exited early"
            handled = int(line)
    finally:
        process.send_signal(signal.SIGKILL)
        await process.wait()
    before = await stored(session_factory)
    assert 0 < before[0] < TRACES, before
    async with sampling(nats_client, topology, session_factory) as consumer:
        await asyncio.wait_for(until_done(consumer, nats_client, topology, session_factory), 60)
    assert await stored(session_factory) == (TRACES, 4 * TRACES, TRACES)
    async with session_factory() as session:
        counts = set((await session.execute(select(Trace.span_count))).scalars())
    assert counts == {4}


class _HangingHandler(TraceHandler):
    """Writes its first chunk's rows, says which traces, then hangs with its transaction open."""

    async def _store(self, session: AsyncSession, known: list[Any]) -> dict[int, str]:
        outcomes = await super()._store(session, known)
        await session.flush()
        print(" ".join(sorted(k.part.trace_id for k in known)), flush=True)
        await asyncio.Event().wait()  # killed here: never committed, its messages never acknowledged
        return outcomes


def hanging_main() -> None:
    """Subprocess: a sampler that hangs in the middle of its first batch (see _HangingHandler)."""
    nats_url, namespace, database_url = sys.argv[1:4]

    async def run() -> None:
        nc = await nats.connect(nats_url)
        sessions = make_session_factory(make_engine(database_url))
        handler = _HangingHandler(sessions, ProjectConfigs(sessions, refresh_s=0.0), process_registry())
        consumer = SpanConsumer(
            nc, Topology(namespace=namespace), handler, POLICY, batch=20, fetch_timeout_s=0.2, tick_s=0.05
        )
        await consumer.start()
        await asyncio.Event().wait()

    asyncio.run(run())


async def test_two_samplers_one_killed_mid_batch_the_other_stores_everything_once(
    nats_client: NatsClient, nats_url: str, topology: Topology, session_factory: Sessions, database_url: str
) -> None:
    """Two sampler processes on the shared durable consumer; one is killed (SIGKILL) while it holds a
    batch: rows written in its open transaction, its messages unacknowledged. The other takes their
    redelivery: every trace, span and score is stored exactly once."""
    process = await sampler_process(
        nats_client, nats_url, topology, session_factory, database_url, "hanging_main"
    )
    try:
        assert process.stdout is not None
        line = await asyncio.wait_for(process.stdout.readline(), 60)
        assert line, "the sampler exited before its first batch"
        held = line.decode().split()
        async with sampling(nats_client, topology, session_factory) as survivor:
            info = await nats_client.jetstream().consumer_info(
                topology.traffic_spans_stream, SAMPLER_SPANS_CONSUMER
            )
            assert info.num_ack_pending > 0  # the hanging sampler holds its messages
            process.send_signal(signal.SIGKILL)
            await process.wait()
            await asyncio.wait_for(until_done(survivor, nats_client, topology, session_factory), 60)
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()
    assert held and await stored(session_factory) == (TRACES, 4 * TRACES, TRACES)
    async with session_factory() as session:
        rows = (await session.execute(select(Trace.trace_id, Trace.span_count))).all()
    assert sorted(trace_id for trace_id, _ in rows) == sorted({trace_id for trace_id, _ in rows})
    assert {count for _, count in rows} == {4}
    assert set(held) <= {trace_id for trace_id, _ in rows}
    assert survivor.handler.outcomes["stored"] == TRACES  # the killed one committed nothing
