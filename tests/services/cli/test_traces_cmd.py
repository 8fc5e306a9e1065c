"""``yardstick traces list|show`` and ``yardstick online backfill`` against a live coordinator, over
traces the sampler's handler stored."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import httpx
import pytest
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker
from typer.testing import CliRunner, Result

from services.cli.app import app as cli
from shared.db.session import make_engine, make_session_factory
from tests.services.coordinator.traces.api.test_traces import CONFIG, store
from tests.services.live_api import Api
from tests.services.sampler.spans import trace_hex

pytestmark = [pytest.mark.integration, pytest.mark.timeout(120)]


async def yardstick(api: Api, *args: str) -> Result:
    """Off the loop: the coordinator's backfill runs on the server thread's own loop meanwhile."""
    return await asyncio.to_thread(CliRunner().invoke, cli, list(args), env=api.env)


@pytest.fixture
async def traced(api: Api, database_url: str) -> AsyncIterator[async_sessionmaker[AsyncSession]]:
    """Four support-bot traces (one failed, one on another model) and one billing trace, stored."""
    async with httpx.AsyncClient(base_url=api.url, headers={"Authorization": f"Bearer {api.key}"}) as client:
        (await client.put("/online/config", json=CONFIG)).raise_for_status()
    engine = make_engine(database_url)
    sessions = make_session_factory(engine)
    await store(sessions, 0)
    await store(sessions, 1, tool="refund", error=True)
    await store(sessions, 2, model="other-model")
    await store(sessions, 3)
    await store(sessions, 4, service="billing")
    yield sessions
    await engine.dispose()


@pytest.mark.usefixtures("traced")
async def test_list_and_show(api: Api) -> None:
    listed = await yardstick(api, "traces", "list", "--service", "support-bot", "--limit", "3")
    assert listed.exit_code == 0, listed.output
    assert "Traces (3 of 4)" in listed.stdout
    assert trace_hex(3) in listed.stdout and trace_hex(0) not in listed.stdout  # newest first
    failed = await yardstick(api, "traces", "list", "--errors", "--since", "3650d")
    assert failed.exit_code == 0, failed.output
    assert trace_hex(1) in failed.stdout and trace_hex(0) not in failed.stdout
    other = await yardstick(api, "traces", "list", "--model", "other-model")
    assert trace_hex(2) in other.stdout and trace_hex(3) not in other.stdout
    none = await yardstick(api, "traces", "list", "--since", "2099-01-01T00:00:00Z")
    assert none.exit_code == 0 and "Traces (0 of 0)" in none.stdout
    bad = await yardstick(api, "traces", "list", "--since", "yesterday")
    assert bad.exit_code == 2 and "yesterday" in bad.stderr

    shown = await yardstick(api, "traces", "show", trace_hex(1))
    assert shown.exit_code == 0, shown.output
    for text in ("Where is order 1?", "refund", "tool_called", "tokens in 50 out 12", "[llm]"):
        assert text in shown.stdout, text
    missing = await yardstick(api, "traces", "show", "0" * 32)
    assert missing.exit_code == 2 and "not found" in missing.stderr


@pytest.mark.usefixtures("traced")
async def test_online_backfill_is_idempotent(api: Api) -> None:
    args = ("online", "backfill", "--since", "3650d", "--service", "support-bot")
    first = await yardstick(api, *args, "-e", 'latency_budget:{"max_ms": 1000}', "-e", "json_valid")
    assert first.exit_code == 0, first.output
    assert "done: 4 traces, 8 scores written, 0 already present" in first.stdout
    assert "4/4" in first.stderr  # the progress bar reached the total
    again = await yardstick(api, *args, "-e", 'latency_budget:{"max_ms": 1000}', "-e", "json_valid")
    assert again.exit_code == 0, again.output
    assert "done: 4 traces, 0 scores written, 8 already present (kept)" in again.stdout

    unknown = await yardstick(api, *args, "-e", "no_such_metric")
    assert unknown.exit_code == 2 and "no_such_metric" in unknown.stderr
    bad_args = await yardstick(api, *args, "-e", "latency_budget:{oops")
    assert bad_args.exit_code == 2
