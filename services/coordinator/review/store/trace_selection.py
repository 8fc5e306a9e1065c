"""Which sampled traces a ``traces`` queue source selects: one application's traces, narrowed by a
window (its own, or a drift alert's), a model, an online score below a threshold, errors only.

The application must have sent traces to the project (422 naming it otherwise), an alert must be on
that application, and a score filter must name a score its traces have: a typo is an error, not an
empty queue. Candidates come in a stable order (start time, then row id), so a seeded sample of
them is the same every time."""

from __future__ import annotations

from sqlalchemy import ColumnElement, exists, select
from sqlalchemy.ext.asyncio import AsyncSession

from services.coordinator.errors import CoordinatorError
from services.coordinator.review.store.alerts import drift_alert, within_alert
from shared.db.trace_models import UNKNOWN_MODEL, Trace, TraceScore
from yardstick.api.review import TracesSource


class InvalidSource(CoordinatorError):
    """The source names something the project does not have."""

    status_code = 422


async def _known(session: AsyncSession, condition: ColumnElement[bool]) -> bool:
    return bool((await session.execute(select(exists().where(condition)))).scalar())


async def resolved(session: AsyncSession, source: TracesSource) -> TracesSource:
    """``source`` checked against the project, with its drift alert's window and model filled in."""
    if not await _known(session, Trace.application == source.application):
        raise InvalidSource(
            f"no traces from application {source.application!r} in this project: "
            "GET /traces/applications lists the applications"
        )
    if source.evaluator is not None and not await _known(
        session, (TraceScore.application == source.application) & (TraceScore.name == source.evaluator)
    ):
        raise InvalidSource(
            f"application {source.application!r} has no online score {source.evaluator!r}: "
            "GET /traces?service=… shows the scores its traces have"
        )
    if source.alert_id is None:
        return source
    alert = await drift_alert(session, source.alert_id)
    if alert.application != source.application:
        on = f"application {alert.application!r}" if alert.application else "the agent's turns"
        raise InvalidSource(
            f"drift alert {source.alert_id!r} is on {on}, not on {source.application!r}: "
            "give that application, or no alert"
        )
    return within_alert(source, alert)


async def trace_candidates(session: AsyncSession, source: TracesSource) -> list[int]:
    """The row ids of the traces ``source`` selects, oldest first."""
    source = await resolved(session, source)
    stmt = select(Trace.id).where(Trace.application == source.application)
    if source.since is not None:
        stmt = stmt.where(Trace.started_at >= source.since)
    if source.until is not None:
        stmt = stmt.where(Trace.started_at < source.until)
    if source.model is not None:  # an alert on "unknown" is on the traces that name no model
        stmt = stmt.where(
            Trace.model.is_(None) if source.model == UNKNOWN_MODEL else Trace.model == source.model
        )
    if source.errors_only:
        stmt = stmt.where(Trace.error.is_(True))
    if source.evaluator is not None and source.below is not None:
        low = select(TraceScore.trace_pk).where(
            TraceScore.name == source.evaluator, TraceScore.value < source.below
        )
        stmt = stmt.where(Trace.id.in_(low))
    rows = await session.execute(stmt.order_by(Trace.started_at, Trace.id))
    return list(rows.scalars())
