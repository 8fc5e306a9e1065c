"""A team's Langfuse-instrumented application moves to Yardstick by changing three environment
variables: the real ``langfuse`` 5.x SDK, in its own process, configured only as its documentation
says (``LANGFUSE_BASE_URL``, ``LANGFUSE_PUBLIC_KEY``, ``LANGFUSE_SECRET_KEY`` = an ingest key), posts to
``/api/public/otel/v1/traces`` with Basic auth; the real sampler stores the trace with its input,
output, model, tokens, tool, user, session, tags and metadata. Wrong credentials and paths the
ingest does not serve are answered in problem details that say what to do."""

from __future__ import annotations

import asyncio
import base64
import os
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest
from nats.aio.client import Client as NatsClient
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from services.sampler.trace_handler import TraceHandler
from shared.db.trace_models import Trace
from tests.services.ingest.harness import Ingest
from tests.services.sampler.consuming import set_rate, tracing_sampler
from tests.shared.traces.langfuse_app import ANSWER, MODEL, QUESTION
from yardstick.api.topology import Topology
from yardstick.api.trace_record import Convention, TraceRecord

pytestmark = [pytest.mark.integration, pytest.mark.timeout(120)]

Sessions = async_sessionmaker[AsyncSession]
ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture
async def sampler(
    nats_client: NatsClient, topology: Topology, session_factory: Sessions
) -> AsyncIterator[TraceHandler]:
    """The sampler's span consumer, sampling every trace of the default project."""
    await set_rate(session_factory, 1.0)
    async with tracing_sampler(nats_client, topology, session_factory) as handler:
        yield handler


def _run_langfuse_app(env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "tests.shared.traces.langfuse_app"],
        env={k: v for k, v in os.environ.items() if not k.startswith(("LANGFUSE_", "OTEL_"))} | env,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


async def test_the_langfuse_sdk_pointed_at_the_ingest_gives_whole_traces(
    ingest: Ingest, key: str, sampler: TraceHandler, session_factory: Sessions
) -> None:
    env = {
        "LANGFUSE_BASE_URL": ingest.url,
        "LANGFUSE_PUBLIC_KEY": "pk-lf-burger-bot",
        "LANGFUSE_SECRET_KEY": key,
        "OTEL_SERVICE_NAME": "burger-bot",
    }
    finished = await asyncio.to_thread(_run_langfuse_app, env)
    assert finished.returncode == 0, finished.stderr
    assert "Failed to export" not in finished.stderr, finished.stderr
    await asyncio.wait_for(sampler.wait_handled(1, "stored"), 30)

    async with session_factory() as session:
        [row] = (await session.execute(select(Trace))).scalars().all()
    record: TraceRecord = row.record
    assert (row.application, row.model, row.input_tokens, row.output_tokens) == ("burger-bot", MODEL, 21, 9)
    assert record.conventions == [Convention.LANGFUSE]
    assert [(m.role, m.content) for m in record.input_messages] == [
        ("system", "You sell burgers."),
        ("user", QUESTION),
    ]
    assert [(m.role, m.content) for m in record.output_messages] == [("assistant", ANSWER)]
    assert [(t.name, t.arguments, t.result) for t in record.tool_calls] == [
        ("get_price", {"item": "burger"}, {"price": 5})
    ]
    assert (record.user_id, record.conversation_id) == ("user-7", "conversation-42")
    assert (record.tags, record.metadata) == (["production", "menu"], {"tier": "gold"})
    assert [child.kind for child in record.roots[0].children] == ["llm", "tool"]
    assert record.notes == []


async def test_wrong_credentials_and_unknown_paths_are_problem_details(ingest: Ingest, key: str) -> None:
    def basic(user: str, password: str) -> dict[str, str]:
        token = base64.b64encode(f"{user}:{password}".encode()).decode()
        return {"Authorization": f"Basic {token}", "Content-Type": "application/x-protobuf"}

    langfuse_path = f"{ingest.url}/api/public/otel/v1/traces"
    async with httpx.AsyncClient(timeout=10) as client:
        accepted = await client.post(langfuse_path, content=b"", headers=basic("pk-lf-any", key))
        wrong = await client.post(langfuse_path, content=b"", headers=basic("pk-lf-any", "sk-lf-not-a-key"))
        no_password = await client.post(langfuse_path, content=b"", headers=basic(key, ""))
        ingestion = await client.post(f"{ingest.url}/api/public/ingestion", json={"batch": []})
        method = await client.get(f"{ingest.url}/v1/logs")
    assert accepted.status_code == 200  # an empty export request: nothing to store, nothing refused
    assert (wrong.status_code, no_password.status_code) == (401, 401)
    assert "LANGFUSE_SECRET_KEY" in no_password.json()["detail"]
    for answer in (wrong, no_password, ingestion, method):
        assert answer.headers["content-type"] == "application/problem+json"
    assert ingestion.status_code == 404 and ingestion.json()["error"] == "NotFound"
    assert "POST /api/public/otel/v1/traces" in ingestion.json()["detail"]
    assert "POST /v1/logs" in ingestion.json()["detail"]
    assert method.status_code == 405 and method.headers["allow"] == "POST"
    assert method.json()["detail"] == "GET is not allowed on /v1/logs: use POST"
