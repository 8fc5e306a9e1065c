"""Scoring a production trace: its record's input, output and metadata
(``shared.online.trace_payload``) through :func:`~shared.evaluators.run_item_evaluators`, the one
runner of item evaluators; no expected output (production traffic has none). Used by the sampler
(as traces arrive) and the coordinator's backfills (over stored traces) alike."""

from __future__ import annotations

from shared.evaluators import EvaluatorRegistry, run_item_evaluators
from shared.online.trace_payload import evaluation_input, evaluation_metadata, evaluation_output
from yardstick.api.evaluation import Evaluation, EvaluatorSpec
from yardstick.api.trace_record import TraceRecord


async def evaluate_trace(
    registry: EvaluatorRegistry, specs: list[EvaluatorSpec], record: TraceRecord
) -> list[Evaluation]:
    """Every evaluator of ``specs`` on the trace, in order; failures recorded, never raised."""
    return await run_item_evaluators(
        registry,
        specs,
        input=evaluation_input(record),
        output=evaluation_output(record),
        expected_output=None,
        metadata=evaluation_metadata(record),
    )
