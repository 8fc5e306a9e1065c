"""One mapping of an evaluation to a score row, with one truncation rule, for every writer."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from shared.db.models import Score
from shared.db.outcome_rows import NAME_WIDTH, score_row, stored_evaluation, trace_score_row
from yardstick.api.evaluation import Evaluation
from yardstick.api.item_failure import ItemFailure

pytestmark = pytest.mark.unit

STORY = ItemFailure(source="evaluator", type="ValueError", message="bad", evaluator="judge")


def test_a_score_row_cuts_bounded_columns_only_and_stores_numbers() -> None:
    row = score_row(Evaluation(name="n" * 150, value=True, comment="c" * 5000, metadata={"k": 1}))
    assert len(row["name"]) == NAME_WIDTH and len(row["comment"]) == 5000
    assert (row["value"], row["score_metadata"], row["failure"], row["error"]) == (1.0, {"k": 1}, None, None)
    assert score_row(Evaluation(name="x", value=float("nan")))["value"] is None


def test_a_failed_score_keeps_its_failure_and_its_error_string() -> None:
    row = score_row(Evaluation(name="judge", failure=STORY))
    assert (row["failure"], row["error"]) == (STORY, "ValueError: bad")


def test_a_trace_score_row_adds_the_version_and_the_traces_labels() -> None:
    at = datetime(2026, 11, 28, tzinfo=UTC)
    row = trace_score_row(
        Evaluation(name="judge", value=0.5, evaluator_version="v" * 50),
        project_id="p",
        trace_pk=7,
        day=at.date(),
        application="a" * 300,
        model=None,
        trace_at=at,
    )
    assert (len(row["evaluator_version"]), len(row["application"]), row["model"]) == (40, 200, "unknown")
    assert (
        trace_score_row(
            Evaluation(name="j"),
            project_id="p",
            trace_pk=7,
            day=at.date(),
            application="a",
            model="m",
            trace_at=at,
        )["evaluator_version"]
        == "1"
    )


def test_a_row_reads_back_as_its_evaluation_and_an_older_row_as_typed() -> None:
    evaluation = Evaluation(name="judge", value=None, comment="c", metadata={"k": 1}, failure=STORY)
    values = score_row(evaluation)
    assert stored_evaluation(Score(**values)) == evaluation
    older = Score(**(values | {"failure": None}))
    read = stored_evaluation(older)
    assert read.failure == STORY, "error without failure (written by the previous version) reads as typed"
