"""Registry behaviour this library relies on: duck-typed results and recorded failures."""

from __future__ import annotations

import sys
import threading
from typing import Any

import pytest
from langfuse.experiment import Evaluation as LangfuseEvaluation

from shared.evaluators import UnknownEvaluator, register, running
from shared.evaluators.loading import add_module
from shared.evaluators.registry import DuplicateEvaluator, EvaluatorRegistry, marked
from tests.evaluator_registry import REGISTRY, get
from yardstick.api.evaluation import EvaluatorSpec

pytestmark = pytest.mark.unit


@register("test_langfuse_style_result")
def _langfuse_style(*, output: Any, **kwargs: Any) -> list[Any]:
    return [
        LangfuseEvaluation(name="len", value=len(output), comment="c"),
        {"name": "label", "value": "good"},
    ]


def _local() -> EvaluatorRegistry:
    """A registry of this module's test evaluators only."""
    registry = EvaluatorRegistry()
    add_module(registry, sys.modules[__name__], "tests")
    return registry


async def test_langfuse_and_dict_results_are_coerced() -> None:
    evs = await running.run_item_evaluators(
        _local(),
        [EvaluatorSpec(name="test_langfuse_style_result")],
        input=None,
        output="abc",
        expected_output=None,
        metadata=None,
    )
    assert [(e.name, e.value) for e in evs] == [("len", 3), ("label", None)]
    assert evs[1].metadata == {"raw_value": "good"}


def test_builtin_modules_register_everything_the_brief_names() -> None:
    get("order_correctness")
    item_level = {
        "order_correctness", "tool_call_accuracy", "no_hallucinated_items", "tool_call_protocol",
        "finalize_after_confirmation", "trajectory_match", "mandatory_tools_check", "forbidden_tools_check",
        "trajectory_pass", "trajectory_similarity", "retrieval", "null_query_correct", "mrr", "map",
        "recall_at_k", "precision_at_k", "ndcg_at_k", "hit_at_k", "faithfulness", "answer_relevancy",
        "citation_precision", "trajectory_judge", "drive_thru_tone",
    }  # fmt: skip
    run_level = {"avg_order_correctness", "avg_score", "score_breakdown"}
    assert {n for n, e in ((e.name, e) for e in REGISTRY.entries()) if e.level == "item"} >= item_level
    assert {n for n, e in ((e.name, e) for e in REGISTRY.entries()) if e.level == "run"} >= run_level
    with pytest.raises(UnknownEvaluator, match="unknown run-level evaluator 'order_correctness'"):
        get("order_correctness", "run")


_threads: dict[str, int] = {}


@register("test_sync_thread")
def _sync_thread(*, output: Any, **kwargs: Any) -> dict[str, Any]:
    _threads["sync"] = threading.get_ident()
    return {"name": "test_sync_thread", "value": 1.0}


@register("test_async_thread")
async def _async_thread(*, output: Any, **kwargs: Any) -> dict[str, Any]:
    _threads["async"] = threading.get_ident()
    return {"name": "test_async_thread", "value": 2.0}


@register("test_inline_thread", inline=True)
def _inline_thread(*, output: Any, **kwargs: Any) -> dict[str, Any]:
    _threads["inline"] = threading.get_ident()
    return {"name": "test_inline_thread", "value": 3.0}


async def test_sync_evaluators_run_off_the_event_loop_in_spec_order() -> None:
    specs = [
        EvaluatorSpec(name="test_async_thread"),
        EvaluatorSpec(name="no_such_evaluator"),
        EvaluatorSpec(name="test_sync_thread"),
        EvaluatorSpec(name="test_inline_thread"),
    ]
    evs = await running.run_item_evaluators(
        _local(), specs, input=None, output="x", expected_output=None, metadata=None
    )
    assert [(e.name, e.value) for e in evs] == [
        ("test_async_thread", 2.0),
        ("no_such_evaluator", None),
        ("test_sync_thread", 1.0),
        ("test_inline_thread", 3.0),
    ]
    assert _threads["async"] == threading.get_ident()  # awaited on the loop
    assert _threads["sync"] != threading.get_ident()  # a worker thread: the loop stays free
    assert _threads["inline"] == threading.get_ident()  # registered inline: cheap enough for the loop


def test_plugins_and_slow_builtins_stay_off_the_loop() -> None:
    """Only evaluators bounded by a small output's size are inline; a user's regex, an edit
    distance over long text, a JSON schema and every plugin (the default) keep the thread."""
    assert not marked(_sync_thread).inline  # type: ignore[union-attr]
    for name in ("regex_match", "string_similarity", "json_schema"):
        assert not REGISTRY.get(name).inline
    for name in ("order_correctness", "no_hallucinated_items", "mrr", "exact_match"):
        assert REGISTRY.get(name).inline


@register("test_raises", version="3")
def _raises(*, output: Any, **kwargs: Any) -> float:
    raise ValueError(f"cannot score {output!r}")


async def test_a_failure_keeps_type_message_traceback_and_version() -> None:
    [failed] = await running.run_item_evaluators(
        _local(),
        [EvaluatorSpec(name="test_raises")],
        input=None,
        output="x",
        expected_output=None,
        metadata=None,
    )
    assert failed.value is None and failed.error == "ValueError: cannot score 'x'"
    assert failed.failure is not None
    assert (failed.failure.type, failed.failure.evaluator, failed.failure.evaluator_version) == (
        "ValueError",
        "test_raises",
        "3",
    )
    assert "in _raises" in failed.failure.traceback and failed.evaluator_version == "3"


def test_two_functions_under_one_name_are_refused_naming_both_sources() -> None:
    registry = _local()

    @register("test_raises")
    def other(*, output: Any, **kwargs: Any) -> float:
        return 1.0

    with pytest.raises(
        DuplicateEvaluator, match="'test_raises' from plugin_x clashes with the one from tests"
    ):
        registry.add(marked(other), "plugin_x")  # type: ignore[arg-type]


def test_declared_specs_carry_the_evaluators_name_and_version() -> None:
    [spec] = get("faithfulness").metric_specs({}).values()
    assert (spec.evaluator, spec.evaluator_version, spec.direction) == (
        "faithfulness",
        get("faithfulness").version,
        "higher_is_better",
    )
    assert REGISTRY.metric_specs([EvaluatorSpec(name="hallucination_rate")])[
        "hallucination_rate"
    ].lower_is_better


def test_a_misspelt_evaluator_name_names_the_closest_one() -> None:
    with pytest.raises(
        UnknownEvaluator,
        match=r"^unknown item-level evaluator 'exact_mach'; did you mean 'exact_match'\? Known: ",
    ):
        get("exact_mach")
    with pytest.raises(UnknownEvaluator, match=r"^unknown item-level evaluator 'vibes'; known: "):
        get("vibes")
