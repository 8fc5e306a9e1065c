"""Drift check, in a session scoped to one project: the recent window of each (evaluator, model,
application) of the sampled traces' scores (``trace_scores``) against the project's offline baseline
and against the previous window. A significant drop raises a :class:`DriftAlert` (its prompt version
is :data:`TRACE_PROMPT_VERSION`: traces have none).

Test: one-sided Welch t-test (see :mod:`services.sampler.drift_stats`); an alert needs
``p < P_THRESHOLD`` and ``delta = window_mean - reference_mean < DELTA_THRESHOLD``. The same
(evaluator, model, prompt_version, reference) is not alerted again within one window.
"""

from __future__ import annotations

import logging
from collections import defaultdict
from datetime import datetime, timedelta

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from services.sampler.drift_stats import welch_less_p, welch_less_p_samples
from services.sampler.offline_reference import offline_reference
from shared.db.models import DriftAlertRow
from shared.db.trace_models import TraceScore
from shared.online.metrics import TRACE_PROMPT_VERSION
from yardstick.api.experiment_events import DriftAlert
from yardstick.api.review import HUMAN_METRIC_PREFIX

log = logging.getLogger(__name__)

P_THRESHOLD = 0.01
DELTA_THRESHOLD = -0.05
MIN_SAMPLES = 5


Key = tuple[str, str, str, str]  # evaluator, model, prompt version, application


async def _values(session: AsyncSession, start: datetime, end: datetime) -> dict[Key, list[float]]:
    traces = select(TraceScore.name, TraceScore.model, TraceScore.application, TraceScore.value).where(
        TraceScore.trace_at >= start,
        TraceScore.trace_at < end,
        TraceScore.value.is_not(None),
        ~TraceScore.name.startswith(HUMAN_METRIC_PREFIX),  # reviewers' labels are not traffic
    )
    out: dict[Key, list[float]] = defaultdict(list)
    for name, model, application, value in (await session.execute(traces)).all():
        out[(name, model, TRACE_PROMPT_VERSION, application)].append(float(value or 0.0))  # no NULLs
    return out


async def projects_scored_since(session: AsyncSession, since: datetime) -> list[str]:
    """The projects with online scores of traces since ``since``: those a drift check has data for."""
    traces = select(TraceScore.project_id).where(TraceScore.trace_at >= since).distinct()
    return sorted(set((await session.execute(traces)).scalars()))


async def _recently_alerted(session: AsyncSession, key: Key, reference: str, since: datetime) -> bool:
    stmt = select(DriftAlertRow.id).where(
        DriftAlertRow.evaluator == key[0],
        DriftAlertRow.model == key[1],
        DriftAlertRow.prompt_version == key[2],
        DriftAlertRow.application == key[3],
        DriftAlertRow.reference == reference,
        DriftAlertRow.created_at >= since,
    )
    return (await session.execute(stmt.limit(1))).first() is not None


def _alert(
    key: Key, reference: str, ref_mean: float, recent: list[float], p: float, start: datetime, end: datetime
) -> DriftAlert | None:
    window_mean = sum(recent) / len(recent)
    delta = window_mean - ref_mean
    if p >= P_THRESHOLD or delta >= DELTA_THRESHOLD:
        return None
    return DriftAlert.model_validate(
        {
            "alert_id": "",
            "evaluator": key[0],
            "model": key[1],
            "prompt_version": key[2],
            "application": key[3],
            "reference": reference,
            "reference_mean": ref_mean,
            "window_mean": window_mean,
            "delta": delta,
            "p_value": p,
            "window_start": start,
            "window_end": end,
        }
    )


async def check_drift(session: AsyncSession, *, window: timedelta, now: datetime) -> list[DriftAlert]:
    """Compare, store new alerts (the caller commits) and return them with their ids."""
    start = now - window
    recent_groups = await _values(session, start, now)
    previous_groups = await _values(session, start - window, start)
    alerts: list[DriftAlert] = []
    for key, recent in sorted(recent_groups.items()):
        if len(recent) < MIN_SAMPLES:
            continue
        candidates: list[tuple[str, dict[str, object], DriftAlert | None]] = []
        offline = await offline_reference(session, key[0], key[1])
        if offline is not None:
            p = welch_less_p(recent, offline.mean, offline.sd, offline.count)
            detail: dict[str, object] = {"experiment_id": offline.experiment_id, "reference_n": offline.count}
            found = _alert(key, "offline", offline.mean, recent, p, start, now)
            candidates.append(("offline", detail, found))
        previous = previous_groups.get(key, [])
        if len(previous) >= MIN_SAMPLES:
            p = welch_less_p_samples(recent, previous)
            ref_mean = sum(previous) / len(previous)
            detail = {"reference_n": len(previous)}
            candidates.append(
                ("previous_window", detail, _alert(key, "previous_window", ref_mean, recent, p, start, now))
            )
        for reference, extra, alert in candidates:
            if alert is None or await _recently_alerted(session, key, reference, start):
                continue
            row = DriftAlertRow(
                evaluator=key[0],
                model=key[1],
                prompt_version=key[2],
                application=key[3],
                reference=reference,
                created_at=now,  # the check's clock, so "not again within one window" uses one time base
                detail={
                    **alert.model_dump(mode="json"),
                    **extra,
                    "window_n": len(recent),
                    "test": "welch_t_less",
                },
            )
            session.add(row)
            await session.flush()
            alert = alert.model_copy(update={"alert_id": row.id})
            row.detail = {**row.detail, "alert_id": row.id}
            alerts.append(alert)
            log.warning(
                "drift: %s %s %s %s vs %s: %.3f -> %.3f (p=%.2g)",
                *key,
                reference,
                alert.reference_mean,
                alert.window_mean,
                alert.p_value,
            )
    return alerts
