"""One typed failure: whose fault, bounded traceback, evaluator named only for an evaluator's, and
the older 'Type: message' string derived from it and read back into it."""

from __future__ import annotations

import json

import pytest
from pydantic import ValidationError

from yardstick.api.evaluation import Evaluation
from yardstick.api.item_failure import NOT_RUN, TRACEBACK_LIMIT, ItemFailure

pytestmark = pytest.mark.unit


def _raised() -> ItemFailure:
    try:
        raise KeyError("menu")
    except KeyError as exc:
        return ItemFailure.of("evaluator", exc, evaluator="order_correctness", evaluator_version="2")


def test_a_raised_exception_becomes_its_type_message_and_traceback() -> None:
    failure = _raised()
    assert (failure.type, failure.message) == ("KeyError", "'menu'")
    assert "in _raised" in failure.traceback and failure.traceback.rstrip().endswith("KeyError: 'menu'")
    assert failure.summary == "KeyError: 'menu'"
    assert failure.label == "order_correctness@2"


def test_the_traceback_keeps_its_end_within_the_bound() -> None:
    long = "frame\n" * TRACEBACK_LIMIT + "ValueError: the last line"
    failure = ItemFailure(source="target", type="ValueError", message="x", traceback=long)
    assert len(failure.traceback) == TRACEBACK_LIMIT
    assert failure.traceback.endswith("ValueError: the last line") and failure.traceback.startswith("…")


def test_only_an_evaluator_failure_names_an_evaluator() -> None:
    with pytest.raises(ValidationError, match="names its evaluator"):
        ItemFailure(source="evaluator", type="ValueError")
    with pytest.raises(ValidationError, match="a target failure names no evaluator"):
        ItemFailure(source="target", type="ValueError", evaluator="judge")
    assert ItemFailure(source="platform", type=NOT_RUN).label == "platform"


@pytest.mark.parametrize(
    ("text", "kind", "message"),
    [
        ("TargetTimeout: agent took longer than 30s", "TargetTimeout", "agent took longer than 30s"),
        ("TargetTimeout", "TargetTimeout", ""),
        ("not run: budget exhausted (spent 3 USD)", NOT_RUN, "budget exhausted (spent 3 USD)"),
        ("the agent fell over", "Error", "the agent fell over"),
    ],
)
def test_an_older_string_reads_as_a_failure_and_typed_ones_give_it_back(
    text: str, kind: str, message: str
) -> None:
    failure = ItemFailure.from_summary(text, "target")
    assert (failure.type, failure.message) == (kind, message)
    if kind != "Error":
        assert failure.summary == text


def test_an_evaluation_carries_the_failure_and_still_sends_its_error_string() -> None:
    failed = Evaluation(name="order_correctness", failure=_raised())
    sent = json.loads(failed.model_dump_json())
    assert sent["error"] == "KeyError: 'menu'", "a coordinator of the previous version reads 'error'"
    assert sent["failure"]["source"] == "evaluator"
    assert Evaluation.model_validate_json(failed.model_dump_json()) == failed
    with pytest.raises(AttributeError):
        failed.error = "other"  # type: ignore[misc]  # derived, read-only


def test_an_evaluation_of_the_previous_version_reads_as_typed() -> None:
    old = {"name": "judge", "value": None, "error": "ValueError: no verdict"}
    assert Evaluation.model_validate(old).failure == ItemFailure(
        source="evaluator", type="ValueError", message="no verdict", evaluator="judge"
    )
    older_failure = {"type": "ValueError", "message": "m", "traceback": "tb", "evaluator": "judge"}
    read = Evaluation.model_validate({"name": "judge", "error": "ValueError: m", "failure": older_failure})
    assert read.failure is not None and (read.failure.source, read.failure.traceback) == ("evaluator", "tb")
    assert Evaluation(name="ok", value=1.0).error is None
