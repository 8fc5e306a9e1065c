"""A sampled trace is stored once with its spans and scores; a redelivered part changes nothing; a
late part merges into the stored trace and its record and scores are rebuilt from every span."""

from __future__ import annotations

import asyncio
from datetime import UTC, date, datetime, timedelta

import pytest
from sqlalchemy import func, select, text
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from services.sampler.project_configs import ProjectConfigs
from services.sampler.trace_handler import TraceHandler
from services.sampler.trace_store import (
    GroupJSON,
    NewTrace,
    TracePart,
    lookup_days,
    store_new,
    stored_traces,
)
from shared.contracts.span_messages import ResourceSpans
from shared.db.trace_models import Trace, TraceScore, TraceSpan
from shared.evaluators.loading import process_registry
from shared.online.application_sampling import ApplicationSampling, TraceFilters
from shared.online.sampling_config import SamplingSettings, save_config
from tests.services.ingest.harness import make_spans
from tests.services.sampler.spans import batch, trace_spans
from tests.shared.traces.sdk_spans import received
from tests.shared.traces.test_openinference_mapping import rag_agent
from yardstick.api.evaluation import EvaluatorSpec
from yardstick.api.projects import DEFAULT_PROJECT
from yardstick.api.trace_record import Completeness

pytestmark = pytest.mark.integration

Sessions = async_sessionmaker[AsyncSession]
EVALUATORS = [EvaluatorSpec(name="tool_called", args={"tool": "lookup_order"})]


async def configure(sessions: Sessions, **app: object) -> None:
    async with sessions() as session:
        settings = SamplingSettings(
            rate=0.0,
            applications={
                "support-bot": ApplicationSampling.model_validate({"evaluators": EVALUATORS, **app})
            },
        )
        await save_config(session, DEFAULT_PROJECT, settings)
        await session.commit()


def handler(sessions: Sessions) -> TraceHandler:
    return TraceHandler(sessions, ProjectConfigs(sessions, refresh_s=0.0), process_registry())


def part(n: int, span_indexes: list[int], completeness: Completeness, **kw: object) -> TracePart:
    spans = [s for i, s in enumerate(trace_spans(n, **kw)) if i in span_indexes]  # type: ignore[arg-type]
    group = batch(spans).groups[0]
    return TracePart(DEFAULT_PROJECT, spans[0].trace_id, [(group, s) for s in spans], completeness)


async def counts(sessions: Sessions) -> tuple[int, int, int]:
    async with sessions() as session:
        return (
            (await session.execute(select(func.count()).select_from(Trace))).scalar_one(),
            (await session.execute(select(func.count()).select_from(TraceSpan))).scalar_one(),
            (await session.execute(select(func.count()).select_from(TraceScore))).scalar_one(),
        )


async def test_stored_once_redelivery_changes_nothing_late_part_merges(session_factory: Sessions) -> None:
    await configure(session_factory, rate=1.0)
    h = handler(session_factory)
    # the tool span (2) comes late, in another message
    assert await h.handle(part(1, [0, 1, 3], Completeness.ROOT_ENDED)) == "stored"
    async with session_factory() as session:
        row = (await session.execute(select(Trace))).scalar_one()
        score = (await session.execute(select(TraceScore))).scalar_one()
    assert row.application == "support-bot" and row.model == "gpt-test" and row.span_count == 3
    assert (row.input_tokens, row.output_tokens) == (50, 12)
    assert score.value == 1.0  # the model asked for the tool: the trajectory has it
    assert await h.handle(part(1, [0, 1, 3], Completeness.ROOT_ENDED)) == "duplicate"
    assert await counts(session_factory) == (1, 3, 1)
    assert await h.handle(part(1, [2, 1], Completeness.QUIET)) == "merged"
    assert await h.handle(part(1, [2], Completeness.QUIET)) == "duplicate"
    assert await counts(session_factory) == (1, 4, 1)
    async with session_factory() as session:
        row = (await session.execute(select(Trace))).scalar_one()
    assert row.span_count == 4 and row.record.span_count == 4
    assert row.completeness == Completeness.ROOT_ENDED  # the root is among the stored spans
    assert row.tool_names == ["lookup_order"]
    assert row.record.tool_calls[0].span_id is not None  # the tool's own span now


async def test_sampling_filters_and_rate_per_application(session_factory: Sessions) -> None:
    await configure(session_factory, rate=1.0, filters=TraceFilters(error=True))
    h = handler(session_factory)
    assert await h.handle(part(2, [0, 1, 2, 3], Completeness.ROOT_ENDED)) == "filtered"
    assert await h.handle(part(3, [0, 1, 2, 3], Completeness.ROOT_ENDED, error=True)) == "stored"
    other = TracePart(  # another application of the project: the project's rate 0.0 applies
        DEFAULT_PROJECT,
        trace_spans(4)[0].trace_id,
        [(batch(trace_spans(4), service="billing").groups[0], s) for s in trace_spans(4)],
        Completeness.ROOT_ENDED,
    )
    assert await h.handle(other) == "not_sampled"
    stray = TracePart("no-such-project", other.trace_id, other.spans, Completeness.ROOT_ENDED)
    assert await h.handle(stray) == "unknown_project"
    assert (await counts(session_factory))[0] == 1


async def test_a_trace_in_no_known_convention_and_without_its_root_is_kept(session_factory: Sessions) -> None:
    await configure(session_factory, rate=1.0)
    spans = [
        s.model_copy(update={"attributes": {"http.route": "/checkout"}}) for s in trace_spans(9)[1:]
    ]  # no root span, no GenAI or OpenInference attributes
    group = batch(spans).groups[0]
    part = TracePart(DEFAULT_PROJECT, spans[0].trace_id, [(group, s) for s in spans], Completeness.QUIET)
    assert await handler(session_factory).handle(part) == "stored"
    async with session_factory() as session:
        row = (await session.execute(select(Trace))).scalar_one()
        score = (await session.execute(select(TraceScore))).scalar_one()
    assert (row.completeness, row.model, row.span_count) == ("quiet", None, 3)
    assert any("is not in the trace" in note for note in row.record.notes)
    assert score.model == "unknown" and score.value == 0.0  # scored: no tool was called


async def test_a_batch_stores_new_traces_together_and_merges_late_and_repeated_parts(
    session_factory: Sessions,
) -> None:
    await configure(session_factory, rate=1.0)
    h = handler(session_factory)
    assert await h.handle(part(1, [0, 1, 3], Completeness.ROOT_ENDED)) == "stored"
    stray = part(9, [0, 1, 2, 3], Completeness.ROOT_ENDED)
    parts = [
        part(2, [0, 1, 2, 3], Completeness.ROOT_ENDED),
        part(1, [2], Completeness.QUIET),  # the late tool span of a stored trace
        part(3, [0, 1], Completeness.QUIET),  # trace 3 handed on in two parts in one tick
        TracePart("no-such-project", stray.trace_id, stray.spans, stray.completeness),
        part(3, [2, 3], Completeness.ROOT_ENDED),
        part(4, [0, 1, 2, 3], Completeness.ROOT_ENDED),
    ]
    outcomes = await h.handle_many(parts)
    assert outcomes == ["stored", "merged", "stored", "unknown_project", "merged", "stored"]
    assert await counts(session_factory) == (4, 16, 4)
    async with session_factory() as session:
        spans = dict((await session.execute(select(Trace.trace_id, Trace.span_count))).all())
    assert sorted(spans.values()) == [4, 4, 4, 4]
    assert await h.handle_many(parts) == ["duplicate"] * 3 + ["unknown_project"] + ["duplicate"] * 2
    assert await counts(session_factory) == (4, 16, 4)


async def test_an_openinference_application_without_evaluators_of_its_own_gets_the_generic_ones(
    session_factory: Sessions,
) -> None:
    """A ``support-bot`` instrumented with OpenInference, in a project on the default configuration:
    scored by the generic reference-free evaluators, not by the drive-thru agent's."""
    async with session_factory() as session:
        await save_config(session, DEFAULT_PROJECT, SamplingSettings(rate=1.0))
        await session.commit()
    spans = received(make_spans(rag_agent, "support-bot"))
    trace_id = spans[0][1].trace_id
    stored = await handler(session_factory).handle(
        TracePart(DEFAULT_PROJECT, trace_id, spans, Completeness.ROOT_ENDED)
    )
    assert stored == "stored"
    async with session_factory() as session:
        scores = (await session.execute(select(TraceScore.name, TraceScore.value))).all()
    assert [(name, value) for name, value in scores] == [("latency_budget", 1.0)]


async def _waiting_on_a_trace_lock(sessions: Sessions) -> None:
    stmt = text("SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted")
    while True:
        async with sessions() as session:
            if (await session.execute(stmt)).scalar_one():
                return


async def test_a_sampler_looking_up_a_trace_another_is_inserting_waits_and_finds_it(
    session_factory: Sessions,
) -> None:
    """No constraint keeps one row per trace across days: the per-trace lock does (the second part
    starts the day after the first, so without it the trace would be stored twice)."""
    first = part(5, [2, 3], Completeness.QUIET, at=datetime(2026, 11, 27, 23, 59, 59, 999000, tzinfo=UTC))
    key = (first.project_id, first.trace_id)
    async with session_factory() as inserting, session_factory() as looking:
        assert await stored_traces(inserting, [key]) == set()
        await store_new(inserting, process_registry(), [NewTrace(first, first.record(), [])])
        lookup = asyncio.create_task(stored_traces(looking, [key]))
        await asyncio.wait_for(_waiting_on_a_trace_lock(session_factory), 10)
        await inserting.commit()
        assert await asyncio.wait_for(lookup, 10) == {key}
        await looking.commit()


def _long_trace(n: int, root_at: datetime, children_at: datetime, indexes: list[int]) -> TracePart:
    """Trace ``n`` whose root (span 0) started ``root_at`` and its children (1-3) ``children_at``."""
    spans = [s for i, s in enumerate(trace_spans(n, at=root_at)) if i == 0 and i in indexes]
    spans += [s for i, s in enumerate(trace_spans(n, at=children_at)) if i > 0 and i in indexes]
    group = batch(spans).groups[0]
    completeness = Completeness.ROOT_ENDED if 0 in indexes else Completeness.QUIET
    return TracePart(DEFAULT_PROJECT, spans[0].trace_id, [(group, s) for s in spans], completeness)


def test_a_part_led_by_its_root_is_looked_up_from_the_roots_day_to_now_and_any_other_part_everywhere() -> (
    None
):
    root_at, children_at = datetime(2026, 11, 1, 23, tzinfo=UTC), datetime(2026, 11, 4, 1, tzinfo=UTC)
    now = datetime(2026, 11, 5, 12, tzinfo=UTC)
    led = _long_trace(1, root_at, children_at, [0, 1, 2, 3])
    assert lookup_days(led, now) == (date(2026, 10, 31), date(2026, 11, 6))
    ahead = _long_trace(1, root_at, datetime(2026, 11, 9, tzinfo=UTC), [0, 1])  # a clock ahead of now
    assert lookup_days(ahead, now) == (date(2026, 10, 31), date(2026, 11, 10))
    assert lookup_days(_long_trace(1, root_at, children_at, [1, 2]), now) is None  # no root
    child_first = _long_trace(1, root_at, root_at - timedelta(seconds=1), [0, 1])  # skewed clocks
    assert lookup_days(child_first, now) is None


@pytest.mark.parametrize("root_first", [True, False])
async def test_a_trace_longer_than_days_is_stored_once_whichever_part_comes_first(
    session_factory: Sessions, root_first: bool
) -> None:
    """The root part on 1 Nov, its children's part on 4 Nov: the later of the two finds the first
    (under its day) and merges into it, never a second row under the other day."""
    await configure(session_factory, rate=1.0)
    root_at, children_at = datetime(2026, 11, 1, 23, tzinfo=UTC), datetime(2026, 11, 4, 1, tzinfo=UTC)
    h = TraceHandler(
        session_factory,
        ProjectConfigs(session_factory, refresh_s=0.0),
        process_registry(),
        clock=lambda: datetime(2026, 11, 4, 2, tzinfo=UTC),
    )
    root = _long_trace(2, root_at, children_at, [0])
    children = _long_trace(2, root_at, children_at, [1, 2, 3])
    first, then = (root, children) if root_first else (children, root)
    assert await h.handle(first) == "stored"
    assert await h.handle(then) == "merged"
    assert await counts(session_factory) == (1, 4, 1)
    async with session_factory() as session:
        row = (await session.execute(select(Trace))).scalar_one()
        days = set((await session.execute(select(TraceSpan.day))).scalars())
    assert row.day == (date(2026, 11, 1) if root_first else date(2026, 11, 4)) and days == {row.day}
    assert row.span_count == 4 and row.started_at == root_at


def test_a_span_document_written_as_text_reads_back_as_its_group_holding_just_it() -> None:
    group = batch(trace_spans(1)).groups[0]
    documents = GroupJSON()
    for span in group.spans:
        assert ResourceSpans.model_validate_json(documents.with_span(group, span)) == group.model_copy(
            update={"spans": [span]}
        )
