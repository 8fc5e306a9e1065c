"""The evaluator library: deterministic scorers and LLM judges, looked up by name in a registry
that each service builds at start-up (``shared.evaluators.loading.build_registry``, imported from
there: it loads every built-in evaluator module, which this package's door must not).

A plugin needs only this door: ``register``, the judge helpers, and the models an evaluator returns
or declares (``Evaluation``, ``EvaluatorSpec``, ``MetricSpec``, ``ItemFailure``: defined in
``yardstick.api``, where the HTTP API carries them, and offered here for plugin authors)."""

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
from yardstick.api.evaluation import Evaluation, EvaluatorSpec
from yardstick.api.item_failure import ItemFailure
from yardstick.api.metric_spec import MetricSpec

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
