"""What a queue's selection does without a database: a seeded sample is the same draw every time
and keeps the candidates' order; a drift alert's window reads from its stored detail, open where it
holds no usable time."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from services.coordinator.review.store.alerts import alert_window
from services.coordinator.review.store.selection import Selected, _sample
from shared.db.models import DriftAlertRow

pytestmark = pytest.mark.unit


def test_a_seeded_sample_is_stable_and_ordered() -> None:
    traces = [Selected(trace_pk=pk) for pk in range(100, 200)]
    first = _sample(traces, 10, seed=7)
    assert first == _sample(traces, 10, seed=7) and len(set(first)) == 10
    assert [s.trace_pk for s in first] == sorted(s.trace_pk for s in first if s.trace_pk is not None)
    assert first != _sample(traces, 10, seed=8)
    assert _sample(traces, None, seed=7) == traces and _sample(traces, 500, seed=7) == traces


def test_an_alerts_window() -> None:
    start, end = datetime(2026, 11, 26, 13, tzinfo=UTC), datetime(2026, 11, 26, 14, tzinfo=UTC)
    alert = DriftAlertRow(detail={"window_start": start.isoformat(), "window_end": end.isoformat()})
    assert alert_window(alert) == (start, end)
    assert alert_window(DriftAlertRow(detail={"window_start": "yesterday"})) == (None, None)
