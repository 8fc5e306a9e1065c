"""Server-sent events into ExperimentEvents."""

from __future__ import annotations

import pytest

from yardstick.events import parse_sse

pytestmark = pytest.mark.unit


def test_events_are_read_and_keep_alives_skipped() -> None:
    lines = [
        "event: started",
        'data: {"experiment_id": "e", "kind": "started", "status": "running", "total": 2}',
        "",
        ": keep-alive",
        "",
        "event: completed",
        'data: {"experiment_id": "e", "kind": "completed", "status": "completed", "total": 2, "done": 2}',
        "",
    ]
    events = list(parse_sse(lines))
    assert [(e.kind, e.done) for e in events] == [("started", 0), ("completed", 2)]
