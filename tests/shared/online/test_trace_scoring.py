"""A trace is scored through the one item-evaluator runner: its record's input, output and metadata,
no expected output; a failing evaluator is a typed failure, not an exception."""

from __future__ import annotations

from typing import Any

import pytest

from shared.evaluators.registry import RegisteredEvaluator
from shared.online.trace_payload import evaluation_input, evaluation_output
from shared.online.trace_scoring import evaluate_trace
from tests.evaluator_registry import REGISTRY, add_for_test
from tests.shared.online.test_trace_payload import record as trace_record
from yardstick.api.evaluation import Evaluation, EvaluatorSpec

pytestmark = pytest.mark.unit


async def test_a_trace_is_scored_on_its_record_and_failures_are_typed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    seen: list[dict[str, Any]] = []

    def peek(**given: Any) -> Evaluation:
        seen.append(given)
        return Evaluation(name="peek", value=1.0)

    def broken(**_: Any) -> Evaluation:
        raise ZeroDivisionError("division by zero")

    add_for_test(monkeypatch, RegisteredEvaluator("peek", peek, "item", "1", "test", True))
    add_for_test(monkeypatch, RegisteredEvaluator("broken", broken, "item", "4", "test", True))
    record = trace_record()
    found = await evaluate_trace(REGISTRY, [EvaluatorSpec(name="peek"), EvaluatorSpec(name="broken")], record)
    assert [e.name for e in found] == ["peek", "broken"]
    [given] = seen
    assert given["input"] == evaluation_input(record) and given["output"] == evaluation_output(record)
    assert given["expected_output"] is None
    failure = found[1].failure
    assert failure is not None and (failure.source, failure.type, failure.label) == (
        "evaluator",
        "ZeroDivisionError",
        "broken@4",
    )
