"""An experiment's evaluators checked at submission: item-level ones against what the running eval
workers have loaded (their own registry when none answered), run-level ones against the
coordinator's registry (the finalizer runs them here)."""

from __future__ import annotations

from collections.abc import Sequence

from services.coordinator.errors import UnknownEvaluatorError
from shared.contracts.evaluation import EvaluatorSpec
from shared.contracts.evaluator_catalog import WorkerEvaluators
from shared.evaluators import EvaluatorArgumentsError, UnknownEvaluator, validate_specs
from shared.evaluators.catalog import EvaluatorUnavailable, check_on_fleet


def validate_evaluators(
    evaluators: list[EvaluatorSpec],
    run_evaluators: list[EvaluatorSpec],
    fleet: Sequence[WorkerEvaluators] | None = None,
) -> None:
    """Raise :class:`UnknownEvaluatorError` (422) saying which evaluator, and why."""
    try:
        if fleet:
            check_on_fleet(evaluators, fleet)
        else:
            validate_specs(evaluators, "item")
        validate_specs(run_evaluators, "run")
    except (UnknownEvaluator, EvaluatorArgumentsError, EvaluatorUnavailable) as exc:
        raise UnknownEvaluatorError(str(exc)) from exc
