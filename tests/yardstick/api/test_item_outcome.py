"""The worker's result is the one item outcome: typed failure in, the older error string still sent."""

from __future__ import annotations

import json

import pytest

from yardstick.api.eval_messages import EvalResult
from yardstick.api.item_failure import ItemFailure
from yardstick.api.item_outcome import ItemOutcome

pytestmark = pytest.mark.unit


def test_a_result_is_an_outcome_and_sends_the_derived_error_for_older_coordinators() -> None:
    failure = ItemFailure(source="target", type="TargetRejected", message="agent said no", traceback="tb")
    result = EvalResult(experiment_id="e", item_id="i", status="error", failure=failure)
    assert isinstance(result, ItemOutcome)
    sent = json.loads(result.model_dump_json())
    assert sent["error"] == "TargetRejected: agent said no"
    assert EvalResult.model_validate(sent) == result


def test_a_result_from_a_worker_of_the_previous_version_reads_as_a_target_failure() -> None:
    old = {"experiment_id": "e", "item_id": "i", "status": "error", "error": "TargetTimeout: slow"}
    read = EvalResult.model_validate(old)
    assert read.failure == ItemFailure(source="target", type="TargetTimeout", message="slow")
    assert read.error == "TargetTimeout: slow"
