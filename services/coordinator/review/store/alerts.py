"""The drift alert a queue's source names: found in the caller's project, and the window it covers."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from services.coordinator.errors import CoordinatorError
from shared.db.models import DriftAlertRow
from yardstick.api.review import TracesSource


class AlertNotFound(CoordinatorError):
    status_code = 404


async def drift_alert(session: AsyncSession, alert_id: str) -> DriftAlertRow:
    row = (
        await session.execute(select(DriftAlertRow).where(DriftAlertRow.id == alert_id))
    ).scalar_one_or_none()
    if row is None:
        raise AlertNotFound(f"drift alert {alert_id!r} not found: GET /online/alerts lists them")
    return row


def _when(value: object) -> datetime | None:
    """A time stored in an alert's detail; None when it holds none (the window is then open)."""
    try:
        return datetime.fromisoformat(str(value)) if value is not None else None
    except ValueError:
        return None


def alert_window(alert: DriftAlertRow) -> tuple[datetime | None, datetime | None]:
    """The alert's window: (start, end), either None when the alert does not say."""
    return _when(alert.detail.get("window_start")), _when(alert.detail.get("window_end"))


def within_alert(source: TracesSource, alert: DriftAlertRow) -> TracesSource:
    """``source`` narrowed to the alert's window and model, where it does not set its own."""
    since, until = alert_window(alert)
    return source.model_copy(
        update={
            "since": source.since or since,
            "until": source.until or until,
            "model": source.model or alert.model,
        }
    )
