"""The evaluator library: deterministic scorers and LLM judges, looked up by name."""

from shared.contracts.evaluation import Evaluation, EvaluatorSpec
from shared.evaluators.arguments import EvaluatorArgumentsError
from shared.evaluators.registry import (
    REGISTRY,
    RegisteredEvaluator,
    UnknownEvaluator,
    get,
    load_builtin_evaluators,
    register,
    run_item_evaluators,
    run_run_evaluators,
    validate_specs,
)

__all__ = [
    "REGISTRY",
    "Evaluation",
    "EvaluatorArgumentsError",
    "EvaluatorSpec",
    "RegisteredEvaluator",
    "UnknownEvaluator",
    "get",
    "load_builtin_evaluators",
    "register",
    "run_item_evaluators",
    "run_run_evaluators",
    "validate_specs",
]
