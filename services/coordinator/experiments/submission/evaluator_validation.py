"""An experiment's evaluators checked at submission: item-level ones against what the running eval
workers have loaded (the coordinator's own registry when none answered), run-level ones against the
coordinator's registry (the finalizer runs them here). What their metrics mean is read at the same
time and recorded with the experiment."""

from __future__ import annotations

from collections.abc import Sequence

from services.coordinator.errors import UnknownEvaluatorError
from shared.contracts.evaluator_catalog import WorkerEvaluators
from shared.evaluators import EvaluatorArgumentsError, EvaluatorRegistry, UnknownEvaluator
from shared.evaluators.catalog import EvaluatorUnavailable, check_on_fleet, declared_metric_specs
from shared.evaluators.loading import process_registry
from yardstick.api.evaluation import EvaluatorSpec
from yardstick.api.metric_spec import MetricSpec


def validate_evaluators(
    evaluators: list[EvaluatorSpec],
    run_evaluators: list[EvaluatorSpec],
    fleet: Sequence[WorkerEvaluators] | None = None,
    registry: EvaluatorRegistry | None = None,
) -> dict[str, MetricSpec]:
    """Raise :class:`UnknownEvaluatorError` (422) saying which evaluator, and why; return what the
    item-level evaluators declare their metrics mean (for ``ExperimentConfig.metric_specs``)."""
    registry = registry or process_registry()
    try:
        if fleet:
            check_on_fleet(registry, evaluators, fleet)
        else:
            registry.validate(evaluators, "item")
        registry.validate(run_evaluators, "run")
    except (UnknownEvaluator, EvaluatorArgumentsError, EvaluatorUnavailable) as exc:
        raise UnknownEvaluatorError(str(exc)) from exc
    return declared_metric_specs(registry, evaluators, fleet or ())
