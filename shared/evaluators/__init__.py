"""The evaluator library: deterministic scorers and LLM judges, looked up by name in a registry
that each service builds at start-up (``shared.evaluators.loading.build_registry``, imported from
there: it loads every built-in evaluator module, which this package's door must not)."""

from shared.contracts.evaluation import Evaluation, EvaluatorSpec
from shared.contracts.item_failure import ItemFailure
from shared.contracts.metric_spec import MetricSpec
from shared.evaluators.arguments import EvaluatorArgumentsError
from shared.evaluators.judging import Judging, NotMeasured, run_judge
from shared.evaluators.plugins import PluginLoadError
from shared.evaluators.registry import (
    EvaluatorRegistry,
    RegisteredEvaluator,
    UnknownEvaluator,
    register,
)
from shared.evaluators.running import failure, run_item_evaluators, run_run_evaluators

__all__ = [
    "Evaluation",
    "EvaluatorArgumentsError",
    "EvaluatorRegistry",
    "EvaluatorSpec",
    "ItemFailure",
    "Judging",
    "MetricSpec",
    "NotMeasured",
    "PluginLoadError",
    "RegisteredEvaluator",
    "UnknownEvaluator",
    "failure",
    "register",
    "run_item_evaluators",
    "run_judge",
    "run_run_evaluators",
]
