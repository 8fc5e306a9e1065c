"""Production traffic seeded the way the product takes it in: a hand-made trace through the sampler's
trace handler, which samples, stores and scores it as the span consumer does."""

from __future__ import annotations

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from services.sampler.project_configs import ProjectConfigs
from services.sampler.trace_handler import TraceHandler
from services.sampler.trace_store import TracePart
from shared.evaluators.loading import process_registry
from tests.services.sampler.spans import batch, trace_spans
from yardstick.api.projects import DEFAULT_PROJECT
from yardstick.api.trace_record import Completeness

Sessions = async_sessionmaker[AsyncSession]


def trace_handler(sessions: Sessions) -> TraceHandler:
    """A handler that reads each project's sampling config afresh."""
    return TraceHandler(sessions, ProjectConfigs(sessions, refresh_s=0.0), process_registry())


async def store(
    sessions: Sessions,
    n: int,
    *,
    project: str = DEFAULT_PROJECT,
    service: str = "support-bot",
    handler: TraceHandler | None = None,
    **kw: object,
) -> str:
    """Trace ``n`` (``spans.trace_spans``), whole, through the handler; what the handler answered."""
    spans = trace_spans(n, **kw)  # type: ignore[arg-type]
    group = batch(spans, project=project, service=service).groups[0]
    part = TracePart(project, spans[0].trace_id, [(group, s) for s in spans], Completeness.ROOT_ENDED)
    return await (handler or trace_handler(sessions)).handle(part)
