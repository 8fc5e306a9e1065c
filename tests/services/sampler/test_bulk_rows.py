"""Rows written by one ``INSERT ... SELECT FROM unnest(arrays)`` read back as they were given: text
arrays with quotes, backslashes, commas and braces; JSON from a model; NULLs; a conflicting row left
alone."""

from __future__ import annotations

from datetime import UTC, date, datetime

import pytest
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from services.sampler.bulk_rows import insert_rows
from services.sampler.trace_store import TRACE_KEY
from shared.db.trace_models import Trace
from tests.services.sampler.test_trace_store import part
from yardstick.api.projects import DEFAULT_PROJECT
from yardstick.api.trace_record import Completeness

pytestmark = pytest.mark.integration

AWKWARD = ['say "hi"', "back\\slash", "a,b", "{braced}", "", "NULL"]


def _row(trace_id: str, tools: list[str]) -> dict[str, object]:
    record = part(1, [0, 1, 2, 3], Completeness.ROOT_ENDED).record()
    at = datetime(2026, 11, 28, 9, tzinfo=UTC)
    return {
        "project_id": DEFAULT_PROJECT,
        "trace_id": trace_id,
        "day": date(2026, 11, 28),
        "application": "app",
        "conversation_id": None,
        "model": None,
        "provider": None,
        "started_at": at,
        "ended_at": at,
        "latency_ms": 1.5,
        "input_tokens": None,
        "output_tokens": 3,
        "total_tokens": None,
        "error": False,
        "tool_names": tools,
        "span_count": 4,
        "completeness": "root_ended",
        "record": record,
        "stored_at": at,
        "updated_at": at,
    }


async def test_rows_read_back_as_given_and_a_conflict_is_left_alone(
    session_factory: async_sessionmaker[AsyncSession],
) -> None:
    rows = [_row("a" * 32, AWKWARD), _row("b" * 32, [])]
    async with session_factory() as session:
        written = await insert_rows(session, Trace, rows, conflict=TRACE_KEY, returning=("trace_id",))
        again = await insert_rows(session, Trace, rows[:1], conflict=TRACE_KEY, returning=("trace_id",))
        await session.commit()
    assert sorted(t for (t,) in written) == ["a" * 32, "b" * 32] and again == []
    async with session_factory() as session:
        stored = {t.trace_id: t for t in (await session.execute(select(Trace))).scalars()}
    assert stored["a" * 32].tool_names == AWKWARD and stored["b" * 32].tool_names == []
    assert stored["a" * 32].record == rows[0]["record"]
    assert stored["a" * 32].input_tokens is None and stored["a" * 32].output_tokens == 3
