"""A review queue's source parses by its kind; a traces source needs its application, takes an
evaluator and a threshold together, and a window that runs forwards."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from pydantic import TypeAdapter, ValidationError

from yardstick.api.review import MAX_QUEUE_ITEMS, QueueDefinition, ReviewSource, TracesSource

pytestmark = pytest.mark.unit

SOURCE: TypeAdapter[ReviewSource] = TypeAdapter(ReviewSource)


def test_the_kind_picks_the_source() -> None:
    traces = SOURCE.validate_python({"kind": "traces", "application": "support-bot", "errors_only": True})
    assert isinstance(traces, TracesSource) and traces.errors_only and traces.seed == 0
    with pytest.raises(ValidationError, match="does not match any of the expected tags"):
        SOURCE.validate_python({"kind": "online"})  # the agent's turns from before traces: gone
    with pytest.raises(ValidationError, match="application"):
        SOURCE.validate_python({"kind": "traces"})
    with pytest.raises(ValidationError, match="application"):
        SOURCE.validate_python({"kind": "traces", "application": ""})


def test_a_traces_filter_must_make_sense() -> None:
    with pytest.raises(ValidationError, match="evaluator and below together"):
        TracesSource(application="a", evaluator="tool_called")
    with pytest.raises(ValidationError, match="evaluator and below together"):
        TracesSource(application="a", below=0.5)
    early, late = datetime(2026, 1, 1, tzinfo=UTC), datetime(2026, 1, 2, tzinfo=UTC)
    with pytest.raises(ValidationError, match="since must be before until"):
        TracesSource(application="a", since=late, until=early)
    with pytest.raises(ValidationError, match="sample"):
        TracesSource(application="a", sample=MAX_QUEUE_ITEMS + 1)
    assert TracesSource(application="a", since=early, until=late, evaluator="x", below=1).below == 1
    naive = TracesSource(application="a", since=datetime(2026, 1, 1), until=late)
    assert naive.since == early  # a time without a zone is UTC, comparable with one that has it


def test_a_queue_definition_round_trips_a_traces_source() -> None:
    definition = QueueDefinition.model_validate(
        {
            "source": {"kind": "traces", "application": "billing", "alert_id": "a1", "sample": 5, "seed": 3},
            "rubric": {"fields": [{"name": "correct", "kind": "binary"}]},
        }
    )
    again = QueueDefinition.model_validate_json(definition.model_dump_json())
    assert again == definition and isinstance(again.source, TracesSource)
