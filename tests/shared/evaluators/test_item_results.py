"""The run-level accessor accepts our ItemResult, dicts and Langfuse's ExperimentItemResult."""

from __future__ import annotations

from datetime import UTC, datetime
from types import SimpleNamespace

import pytest
from langfuse.api.commons.types.dataset_item import DatasetItem
from langfuse.experiment import Evaluation as LangfuseEvaluation
from langfuse.experiment import ExperimentItemResult

from shared.evaluators.item_results import ItemResult, as_item_result, coerce_evaluation
from yardstick.api.evaluation import Evaluation

pytestmark = pytest.mark.unit


def test_our_item_result_passes_through() -> None:
    result = ItemResult(item_id="x", evaluations=[Evaluation(name="s", value=0.5)])
    assert as_item_result(result) is result
    assert result.score("s") == 0.5
    assert result.score("missing") is None


def test_plain_dict() -> None:
    result = as_item_result(
        {"item_id": "x", "metadata": {"category": "c"}, "evaluations": [{"name": "s", "value": True}]}
    )
    assert result.metadata == {"category": "c"}
    assert result.score("s") == 1.0


def test_langfuse_local_item_result() -> None:
    langfuse_result = ExperimentItemResult(
        item={"input": {"q": 1}, "expected_output": {"e": 2}, "metadata": {"category": "quantity"}},
        output={"order_items": []},
        evaluations=[LangfuseEvaluation(name="order_correctness", value=0.7, comment="c", metadata={"k": 1})],
        trace_id=None,
    )
    result = as_item_result(langfuse_result)
    assert result.metadata == {"category": "quantity"}
    assert result.input == {"q": 1} and result.expected_output == {"e": 2}
    assert result.output == {"order_items": []}
    [evaluation] = result.evaluations
    assert (evaluation.name, evaluation.value, evaluation.comment, evaluation.metadata) == (
        "order_correctness",
        0.7,
        "c",
        {"k": 1},
    )


def test_langfuse_dataset_item_result() -> None:
    now = datetime.now(UTC)
    item = DatasetItem(
        id="order-correctness-003",
        status="ACTIVE",
        input={"customer_utterance": "hi"},
        expected_output={"expected_items": []},
        metadata={"category": "greeting", "difficulty": "easy"},
        dataset_id="d",
        dataset_name="drive-thru",
        created_at=now,
        updated_at=now,
        media_references=[],
    )
    langfuse_result = ExperimentItemResult(
        item=item, output={}, evaluations=[LangfuseEvaluation(name="tone", value="friendly")], trace_id="t"
    )
    result = as_item_result(langfuse_result)
    assert result.item_id == "order-correctness-003"
    assert result.metadata["difficulty"] == "easy"
    [evaluation] = result.evaluations
    assert evaluation.value is None and evaluation.metadata["raw_value"] == "friendly"


def test_duck_typed_object_with_numeric_string() -> None:
    obj = SimpleNamespace(
        item=SimpleNamespace(id=7, metadata=None),
        output=None,
        evaluations=[SimpleNamespace(name="s", value="0.25")],
    )
    result = as_item_result(obj)
    assert result.item_id == "7" and result.metadata == {}
    assert result.score("s") == 0.25


def test_coerce_evaluation_defaults_the_name() -> None:
    assert coerce_evaluation(SimpleNamespace(value=1.0), "fallback").name == "fallback"
