"""The evaluator library: deterministic scorers and LLM judges, looked up by name."""

from shared.contracts.evaluation import Evaluation, EvaluatorSpec
from shared.evaluators.registry import (
    REGISTRY,
    RegisteredEvaluator,
    UnknownEvaluator,
    get,
    register,
    run_item_evaluators,
    run_run_evaluators,
    validate_specs,
)

__all__ = [
    "REGISTRY",
    "Evaluation",
    "EvaluatorSpec",
    "RegisteredEvaluator",
    "UnknownEvaluator",
    "get",
    "register",
    "run_item_evaluators",
    "run_run_evaluators",
    "validate_specs",
]
