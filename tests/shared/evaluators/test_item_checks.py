"""``item_checks``: each item's own checks, run through the registry like any evaluator."""

from __future__ import annotations

from typing import Any

import pytest

from tests.evaluator_registry import run_item_evaluators
from tests.shared.evaluators.test_judges import FakeJudge
from tests.shared.evaluators.test_rubric import judge
from yardstick.api.evaluation import Evaluation, EvaluatorSpec

pytestmark = pytest.mark.unit

__all__ = ["judge"]  # the fake judge fixture, shared with the rubric's tests

SPEC = [EvaluatorSpec(name="item_checks")]


async def scores(output: Any, checks: Any, **args: Any) -> dict[str, Evaluation]:
    specs = [EvaluatorSpec(name="item_checks", args=args)] if args else SPEC
    results = await run_item_evaluators(
        specs, input={"q": "hi"}, output=output, expected_output={"checks": checks}, metadata={}
    )
    return {e.name: e for e in results}


def check(evaluator: str, metric: str, **extra: Any) -> dict[str, Any]:
    return {"evaluator": evaluator, "metric": metric, **extra}


async def test_each_item_brings_its_own_expectations() -> None:
    checks = [
        check("contains", "contains", args={"expected": "Bonjour", "case_sensitive": True}),
        check("regex_match", "regex", args={"pattern": r"\bmonde\b"}),
        check("contains", "not_contains", args={"expected": "hello"}, negate=True),
    ]
    got = await scores("Bonjour le monde", checks)
    assert {name: e.value for name, e in got.items()} == {"contains": 1.0, "regex": 1.0, "not_contains": 1.0}
    failing = await scores("bonjour HELLO", checks)
    assert {name: e.value for name, e in failing.items()} == dict.fromkeys(got, 0.0)
    assert "failed" in (failing["contains"].comment or "")


async def test_values_any_or_all_and_shared_metrics_must_all_pass() -> None:
    any_of = check("contains", "contains_any", values=["Paris", "Lyon"], args={"case_sensitive": True})
    all_of = check("contains", "contains_all", values=["Paris", "Lyon"], match="all")
    got = await scores("Paris only", [any_of, all_of])
    assert got["contains_any"].value == 1.0 and got["contains_all"].value == 0.0
    both = [check("contains", "m", args={"expected": "a"}), check("contains", "m", args={"expected": "z"})]
    assert (await scores("abc", both))["m"].value == 0.0
    assert len((await scores("abc", both))["m"].metadata["checks"]) == 2


async def test_a_threshold_turns_a_score_into_a_verdict() -> None:
    similar = check("string_similarity", "similar", values=["was geht"], threshold=0.6)
    assert (await scores("was geht", [similar]))["similar"].value == 1.0
    assert (await scores("completely different", [similar]))["similar"].value == 0.0
    negated = {**similar, "negate": True}
    assert (await scores("completely different", [negated]))["similar"].value == 1.0


async def test_field_reads_the_answer_out_of_a_structured_output() -> None:
    checks = [check("exact_match", "equals", args={"expected": "42", "strip": False})]
    got = await scores({"answer": "42", "latency_ms": 3}, checks, field="answer")
    assert got["equals"].value == 1.0


async def test_bad_checks_are_not_measured_never_a_failure_of_the_output() -> None:
    bad_args = [check("regex_match", "regex", args={"pattern": "("})]
    got = await scores("anything", bad_args)
    assert got["regex"].value is None and "not measured" in (got["regex"].comment or "")
    malformed = await scores("anything", [{"evaluator": "javascript", "metric": "x"}])
    assert malformed["item_checks"].value is None and "malformed" in (malformed["item_checks"].comment or "")
    none = await run_item_evaluators(SPEC, input={}, output="x", expected_output={"answer": 1}, metadata={})
    assert [(e.name, e.value) for e in none] == [("item_checks", None)]
    assert "no expected_output.checks" in (none[0].comment or "")


async def test_a_rubric_check_asks_the_judge_with_the_items_own_criteria(judge: FakeJudge) -> None:
    judge.answers["RubricVerdict"] = {"reason": "talks like a person", "score": 0.8}
    rubric = check("llm_rubric", "llm_rubric", args={"criteria": "never says it is an AI", "scale": [0, 1]})
    got = await scores("Bonjour!", [{**rubric, "threshold": 0.5}])
    assert got["llm_rubric"].value == 1.0 and "talks like a person" in (got["llm_rubric"].comment or "")
    [prompt] = judge.prompts
    assert "never says it is an AI" in prompt and "Reference" not in prompt
    strict = await scores("Bonjour!", [{**rubric, "threshold": 0.9}])
    assert strict["llm_rubric"].value == 0.0
