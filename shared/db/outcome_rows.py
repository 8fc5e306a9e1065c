"""An item's outcome and its scores as row values, and back: the one mapping every writer and reader
of ``experiment_items``' results, ``scores`` and ``trace_scores`` uses.

The truncation rule (one, for every writer): text goes in as it is except where its column is
bounded, where it is cut to the column's width: a metric ``name`` to 100 characters, an
``evaluator_version`` to 40, a trace's ``application`` and ``model`` to 200. A value is the
evaluation's :attr:`~yardstick.api.evaluation.Evaluation.numeric` (bools 0/1, NaN None). A
failure's traceback is bounded by :class:`~yardstick.api.item_failure.ItemFailure` itself.
``error`` is written as the failure's ``'Type: message'`` for readers of the previous version.
"""

from __future__ import annotations

from datetime import date, datetime
from typing import Any

from pydantic import BaseModel

from shared.db.models import ExperimentItem, ScoreColumns
from shared.db.trace_models import UNKNOWN_MODEL, Trace
from yardstick.api.agent_messages import TokenUsage
from yardstick.api.evaluation import Evaluation
from yardstick.api.item_outcome import ItemOutcome

NAME_WIDTH = 100
VERSION_WIDTH = 40
TRACE_LABEL_WIDTH = 200


def score_row(evaluation: Evaluation) -> dict[str, Any]:
    """The values of one score row (attribute names of :class:`~shared.db.models.ScoreColumns`)."""
    return {
        "name": evaluation.name[:NAME_WIDTH],
        "value": evaluation.numeric,
        "comment": evaluation.comment,
        "score_metadata": evaluation.metadata,
        "error": evaluation.error,
        "failure": evaluation.failure,
    }


def trace_score_row(
    evaluation: Evaluation,
    *,
    project_id: str,
    trace_pk: int,
    day: date,
    application: str,
    model: str | None,
    trace_at: datetime,
) -> dict[str, Any]:
    """The values of one ``trace_scores`` row: :func:`score_row`, the evaluator's version (``1`` when
    it declares none) and the trace's keys and labels."""
    return {
        **score_row(evaluation),
        "evaluator_version": (evaluation.evaluator_version or "1")[:VERSION_WIDTH],
        "project_id": project_id,
        "trace_pk": trace_pk,
        "day": day,
        "application": application[:TRACE_LABEL_WIDTH],
        "model": (model or UNKNOWN_MODEL)[:TRACE_LABEL_WIDTH],
        "trace_at": trace_at,
    }


def stored_trace_score_rows(trace: Trace, evaluations: list[Evaluation]) -> list[dict[str, Any]]:
    """The ``trace_scores`` rows of a stored trace's evaluations (:func:`trace_score_row` each)."""
    return [
        trace_score_row(
            e,
            project_id=trace.project_id,
            trace_pk=trace.id,
            day=trace.day,
            application=trace.application,
            model=trace.model,
            trace_at=trace.started_at,
        )
        for e in evaluations
    ]


def outcome_row(outcome: ItemOutcome) -> dict[str, Any]:
    """The result columns of an ``experiment_items`` row."""
    return {
        "output": outcome.output,
        "error": outcome.error,
        "failure": outcome.failure,
        "latency_ms": outcome.latency_ms,
        "usage": None if outcome.usage is None else outcome.usage.model_dump(),
    }


def as_json(value: object) -> object:
    """``json.dumps``' ``default`` for rows sent as one JSON document: models as their JSON."""
    return value.model_dump(mode="json") if isinstance(value, BaseModel) else str(value)


def stored_evaluation(row: ScoreColumns) -> Evaluation:
    """A score row read back (one written by the previous version, ``error`` and no ``failure``,
    reads as its evaluator's failure)."""
    return Evaluation.model_validate(
        {
            "name": row.name,
            "value": row.value,
            "comment": row.comment,
            "metadata": row.score_metadata,
            "failure": row.failure,
            "error": row.error,
            "evaluator_version": getattr(row, "evaluator_version", None),
        }
    )


def stored_outcome(row: ExperimentItem, scores: list[Evaluation]) -> ItemOutcome:
    """An item row's outcome, with its scores (read by the caller: a page or a whole run at once).
    A row written by the previous version (``error`` and no ``failure``) reads as a target failure."""
    return ItemOutcome.model_validate(
        {
            "output": row.output,
            "scores": scores,
            "usage": TokenUsage.model_validate(row.usage) if row.usage else None,
            "latency_ms": row.latency_ms,
            "failure": row.failure,
            "error": row.error,
        }
    )
