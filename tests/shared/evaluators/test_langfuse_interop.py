"""Langfuse's own run_experiment (offline: tracing off, no keys) keeps Yardstick's scores through
``langfuse_evaluator`` (a Yardstick ``Evaluation`` returned as is is dropped by langfuse 5.x)."""

from __future__ import annotations

import logging
from typing import Any

import pytest
from langfuse import Langfuse

from shared.evaluators.langfuse_interop import langfuse_evaluator
from tests.evaluator_registry import run_item_evaluators
from yardstick.api.evaluation import EvaluatorSpec

pytestmark = pytest.mark.unit

ITEMS = [
    {"input": {"q": "one"}, "expected_output": {"answer": "1"}},
    {"input": {"q": "two"}, "expected_output": {"answer": "2"}},
    {"input": {"q": "three"}, "expected_output": {"answer": "three"}},
]
ANSWERS = {"one": "1", "two": "two", "three": "three"}


def task(*, item: Any, **_: Any) -> dict[str, Any]:
    return {"answer": ANSWERS[item["input"]["q"]], "tool_calls": ["lookup"]}


def test_run_experiment_keeps_the_same_values_a_direct_call_gives() -> None:
    logging.getLogger("langfuse").setLevel(logging.CRITICAL)  # "no public key": offline on purpose
    client = Langfuse(tracing_enabled=False)
    result = client.run_experiment(
        name="interop",
        data=ITEMS,  # type: ignore[arg-type]
        task=task,
        evaluators=[
            langfuse_evaluator("exact_match", field="answer"),
            langfuse_evaluator("tool_called", tool="lookup"),
        ],
    )
    kept = [{e.name: e.value for e in item.evaluations} for item in result.item_results]
    assert kept == [
        {"exact_match": 1.0, "tool_called": 1.0},
        {"exact_match": 0.0, "tool_called": 1.0},
        {"exact_match": 1.0, "tool_called": 1.0},
    ]


async def test_the_values_equal_a_direct_registry_call() -> None:
    evaluate = langfuse_evaluator("exact_match", field="answer")
    for item in ITEMS:
        output = task(item=item)
        [direct] = await run_item_evaluators(
            [EvaluatorSpec(name="exact_match", args={"field": "answer"})],
            input=item["input"],
            output=output,
            expected_output=item["expected_output"],
            metadata={},
        )
        [wrapped] = await evaluate(
            input=item["input"], output=output, expected_output=item["expected_output"]
        )
        assert (wrapped.name, wrapped.value, wrapped.comment) == (direct.name, direct.value, direct.comment)


def test_bad_arguments_are_refused_when_wrapping() -> None:
    with pytest.raises(ValueError, match="evaluator 'exact_match': fild: unknown argument"):
        langfuse_evaluator("exact_match", fild="answer")
