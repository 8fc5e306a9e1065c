"""The process's evaluator registry, as tests use it: the calls of ``shared.evaluators`` bound to
the registry every service of a test process shares (``process_registry()``)."""

from __future__ import annotations

from typing import Any

import pytest

from shared.analysis.pass_rule import PassPolicy
from shared.evaluators import running
from shared.evaluators.loading import process_registry
from shared.evaluators.registry import Level, RegisteredEvaluator
from yardstick.api.evaluation import Evaluation, EvaluatorSpec
from yardstick.api.pass_criteria import PassCriterion

REGISTRY = process_registry()


def get(name: str, level: Level = "item") -> RegisteredEvaluator:
    return REGISTRY.get(name, level)


def validate_specs(specs: list[EvaluatorSpec], level: Level = "item") -> None:
    REGISTRY.validate(specs, level)


async def run_item_evaluators(specs: list[EvaluatorSpec], **given: Any) -> list[Evaluation]:
    return await running.run_item_evaluators(REGISTRY, specs, **given)


async def run_run_evaluators(specs: list[EvaluatorSpec], *, item_results: list[Any]) -> list[Evaluation]:
    return await running.run_run_evaluators(REGISTRY, specs, item_results=item_results)


def add_for_test(monkeypatch: pytest.MonkeyPatch, entry: RegisteredEvaluator) -> None:
    """``entry`` in the process registry until the test ends."""
    monkeypatch.setitem(REGISTRY._entries, entry.name, entry)


def policy_of(
    evaluators: list[EvaluatorSpec],
    pass_threshold: float = 0.5,
    pass_criteria: dict[str, PassCriterion] | None = None,
) -> PassPolicy:
    """The pass policy of an experiment with these evaluators (their declared specs)."""
    return PassPolicy(pass_threshold, REGISTRY.metric_specs(evaluators), pass_criteria)
