"""The acceptance test of online sampling on the real stack: 10,000 turns of multi-turn traffic go
through the real JetStream stream, the real ``SamplerConsumer`` + ``TurnHandler`` and the real
Postgres. The observed turn-level rate is within ±2 points of the configured one, whole
conversations are sampled, and a second independent run stores exactly the same turns.

The second run is a separate Python process (its own hash seed, its own namespace on the NATS
server, its own database) running alongside the first: it proves the choice depends on nothing
process-local, and the two runs share the machine's two cores instead of queueing."""

from __future__ import annotations

import asyncio
import contextlib
import json
import sys
import uuid
from collections.abc import AsyncIterator, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import nats
import psycopg
import pytest
from nats.aio.client import Client as NatsClient
from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from services.sampler.sampling import in_sample
from services.stack.servers import postgres_uri_for
from shared.contracts.agent_messages import TrafficTurn
from shared.contracts.projects import DEFAULT_PROJECT
from shared.contracts.topology import SAMPLER_CONSUMER, Topology
from shared.db.models import OnlineSample, OnlineScore
from shared.db.session import make_engine, make_session_factory, plain_url
from shared.messaging.streams import declare
from shared.online.sampling_config import DEFAULT_EVALUATORS, SamplingSettings, save_config
from tests.conftest import TEMPLATE_DB
from tests.services.sampler.consuming import consuming
from tests.services.sampler.turns import make_turn

pytestmark = [pytest.mark.integration, pytest.mark.timeout(180)]

Sessions = async_sessionmaker[AsyncSession]
TurnKey = tuple[str, int]

REPO_ROOT = Path(__file__).resolve().parents[3]
RATE = 0.2
TOLERANCE = 0.02
CONVERSATIONS = 2_500
TURNS_PER_CONVERSATION = 4
TOTAL = CONVERSATIONS * TURNS_PER_CONVERSATION
PUBLISH_CHUNK = 500
RUN_TIMEOUT_S = 120.0
ITEMS = ("egg-mcmuffin", "big-mac", "hash-brown", "coca-cola")


def traffic() -> list[TrafficTurn]:
    """2,500 conversations of 4 turns, interleaved the way a busy drive-thru's traffic is: every
    conversation's turn 0, then every turn 1, … (a publish chunk never holds two turns of one
    conversation, so each conversation's turns reach the stream in order). Deterministic."""
    start = datetime(2025, 6, 1, 12, tzinfo=UTC)
    ids = [str(uuid.uuid5(uuid.NAMESPACE_URL, f"yardstick-traffic/{n}")) for n in range(CONVERSATIONS)]
    return [
        make_turn(
            conversation_id,
            turn_index,
            item_id=ITEMS[(n + turn_index) % len(ITEMS)],
            finalized=turn_index == TURNS_PER_CONVERSATION - 1,
            at=start + timedelta(seconds=n + 20 * turn_index),
        )
        for turn_index in range(TURNS_PER_CONVERSATION)
        for n, conversation_id in enumerate(ids)
    ]


async def publish(nc: NatsClient, topology: Topology, turns: list[TrafficTurn]) -> None:
    """Publish every turn, awaiting the PubAcks of ``PUBLISH_CHUNK`` turns at a time."""
    js = nc.jetstream()
    for first in range(0, len(turns), PUBLISH_CHUNK):
        chunk = turns[first : first + PUBLISH_CHUNK]
        acks = await asyncio.gather(
            *(
                js.publish(
                    topology.traffic_agent, t.model_dump_json().encode(), headers={"Nats-Msg-Id": t.msg_id}
                )
                for t in chunk
            )
        )
        assert not any(ack.duplicate for ack in acks)
    info = await js.stream_info(topology.traffic_stream)
    assert info.state.messages == len(turns)


async def sample_run(
    nc: NatsClient, topology: Topology, sessions: Sessions, turns: list[TrafficTurn]
) -> dict[str, int]:
    """Publish the traffic to ``topology``'s stream and consume all of it; the handler's outcomes."""
    await publish(nc, topology, turns)
    async with consuming(nc, topology, sessions, batch=200) as handler:
        await asyncio.wait_for(handler.wait_handled(len(turns)), RUN_TIMEOUT_S)
    info = await nc.jetstream().consumer_info(topology.traffic_stream, SAMPLER_CONSUMER)
    assert info.num_ack_pending == 0 and info.num_pending == 0
    return dict(handler.outcomes)


async def second_run(nats_url: str, namespace: str, database_url: str) -> dict[str, int]:
    """The whole run in the subprocess: same traffic, its own namespace (declared) and database."""
    topology = Topology(namespace=namespace)
    nc = await nats.connect(nats_url)
    engine = make_engine(database_url)
    try:
        await declare(nc.jetstream(), topology)
        return await sample_run(nc, topology, make_session_factory(engine), traffic())
    finally:
        await engine.dispose()
        await nc.close()


def main() -> None:
    """Subprocess entry: ``second_run(nats_url, namespace, database_url)``; outcomes as JSON on stdout."""
    nats_url, namespace, database_url = sys.argv[1:4]
    print(json.dumps(asyncio.run(second_run(nats_url, namespace, database_url))))


async def stored_turns(sessions: Sessions) -> tuple[set[TurnKey], int]:
    """The (conversation, turn) pairs stored, and the number of scores."""
    async with sessions() as session:
        rows = (await session.execute(select(OnlineSample.conversation_id, OnlineSample.turn_index))).all()
        scores = (await session.execute(select(func.count()).select_from(OnlineScore))).scalar_one()
    return {(conversation_id, turn_index) for conversation_id, turn_index in rows}, scores


async def configure(sessions: Sessions) -> None:
    async with sessions() as session:
        await save_config(session, DEFAULT_PROJECT, SamplingSettings(rate=RATE))
        await session.commit()


@pytest.fixture
def second_database_url(pg_base_url: str) -> Iterator[str]:
    """A second fresh, migrated database (the second run's)."""
    name = f"t_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(plain_url(pg_base_url), autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {name} TEMPLATE {TEMPLATE_DB}")
    yield postgres_uri_for(pg_base_url, name)
    with psycopg.connect(plain_url(pg_base_url), autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


@pytest.fixture
async def second_sessions(second_database_url: str) -> AsyncIterator[Sessions]:
    engine = make_engine(second_database_url)
    yield make_session_factory(engine)
    await engine.dispose()


@pytest.fixture
async def second_topology(nats_client: NatsClient) -> AsyncIterator[Topology]:
    """The second run's namespace (declared by the subprocess); its streams are deleted afterwards."""
    topology = Topology(namespace=f"t{uuid.uuid4().hex[:10]}")
    yield topology
    js = nats_client.jetstream()
    for stream in (
        topology.eval_tasks_stream,
        topology.eval_results_stream,
        topology.traffic_stream,
        topology.alerts_stream,
    ):
        with contextlib.suppress(Exception):
            await js.delete_stream(stream)


async def test_observed_rate_matches_the_configured_one_and_two_runs_store_the_same_turns(
    session_factory: Sessions,
    nats_client: NatsClient,
    nats_url: str,
    topology: Topology,
    second_topology: Topology,
    second_database_url: str,
    second_sessions: Sessions,
    tmp_path: Path,
) -> None:
    await configure(session_factory)
    await configure(second_sessions)
    entry = f"from {__name__} import main; main()"
    log_path = tmp_path / "second-run.log"
    with log_path.open("wb") as log:  # a file, not a pipe: a full pipe would block the subprocess
        process = await asyncio.create_subprocess_exec(
            *(sys.executable, "-c", entry, nats_url, second_topology.namespace, second_database_url),
            cwd=REPO_ROOT,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=log,
        )
    try:
        turns = traffic()
        assert len(turns) == TOTAL and len({t.msg_id for t in turns}) == TOTAL
        first_outcomes = await sample_run(nats_client, topology, session_factory, turns)
        out, _ = await asyncio.wait_for(process.communicate(), RUN_TIMEOUT_S)
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()
    assert process.returncode == 0, log_path.read_text(errors="replace")[-3000:]
    second_outcomes = json.loads(out)

    first, first_scores = await stored_turns(session_factory)
    observed = len(first) / TOTAL
    assert abs(observed - RATE) <= TOLERANCE, f"observed rate {observed:.4f}, configured {RATE}"
    assert first_outcomes == {"stored": len(first), "not_sampled": TOTAL - len(first)}
    sampled_conversations = {conversation_id for conversation_id, _ in first}
    assert first == {(c, i) for c in sampled_conversations for i in range(TURNS_PER_CONVERSATION)}, (
        "a sampled conversation is missing some of its turns"
    )
    expected = {t.conversation_id for t in turns if in_sample(t.conversation_id, RATE)}
    assert sampled_conversations == expected, "stored conversations differ from the hash's choice"
    assert first_scores == len(DEFAULT_EVALUATORS) * len(first)

    second, second_scores = await stored_turns(second_sessions)
    assert second_outcomes == first_outcomes
    assert second == first
    assert second_scores == first_scores
