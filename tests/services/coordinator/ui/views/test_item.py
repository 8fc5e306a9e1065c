from __future__ import annotations

import pytest

from services.coordinator.ui.views.item import item_page, transcript, verdict
from tests.evaluator_registry import policy_of
from yardstick.api.evaluation import Evaluation, EvaluatorSpec
from yardstick.api.experiments import ExperimentItemOut
from yardstick.api.item_failure import ItemFailure

pytestmark = pytest.mark.unit


def test_the_trajectory_reads_as_a_conversation_with_tool_calls() -> None:
    output = {
        "trajectory": [
            {"type": "human", "content": "one coffee"},
            {
                "type": "ai",
                "content": "",
                "tool_calls": [{"id": "1", "name": "lookup_menu_item", "args": {"q": "coffee"}}],
            },
            {"type": "tool", "content": '{"found": true}', "tool_call_id": "1", "name": "lookup_menu_item"},
            {"type": "ai", "content": "One coffee. Anything else?"},
            {"type": "nonsense"},
        ]
    }
    entries = transcript(output)
    assert [e.role for e in entries] == ["user", "assistant", "tool", "assistant"]  # unreadable skipped
    assert entries[1].tool_calls[0].name == "lookup_menu_item"
    assert entries[1].tool_calls[0].args == '{"q": "coffee"}'
    assert entries[2].tool_name == "lookup_menu_item"
    assert transcript(None) == transcript({"results": []}) == []


def test_verdicts_follow_the_one_pass_rule() -> None:
    policy = policy_of([EvaluatorSpec(name="retrieval"), EvaluatorSpec(name="hallucination_rate")], 0.5)
    assert verdict(policy, "recall@10", 0.6, None) == "pass"
    assert verdict(policy, "recall@10", 0.2, None) == "fail"
    assert verdict(policy, "recall@10", None, None) == "not measured"
    assert verdict(policy, "precision@10", 0.1, None) == "informational"  # retrieval gates on recall only
    assert verdict(policy, "recall@10", None, "judge timed out") == "error"
    assert verdict(policy, "hallucination_rate", 0.4, None) == "pass"  # lower is better: <= 0.5
    assert verdict(policy, "hallucination_rate", 0.6, None) == "fail"


def test_the_page_lists_the_items_failure_then_each_evaluators() -> None:
    target = ItemFailure(source="target", type="TargetRejected", message="no", traceback="tb")
    judge = ItemFailure(source="evaluator", type="ValueError", message="bad", evaluator="judge")
    item = ExperimentItemOut(
        item_id="a",
        trial=0,
        status="error",
        input={},
        expected_output=None,
        metadata={},
        attempts=1,
        failure=target,
        scores=[Evaluation(name="z", value=1.0), Evaluation(name="judge", failure=judge)],
    )
    page = item_page(item, policy_of([]), None, None)
    assert page.failures == [target, judge]
    assert [(s.name, s.verdict, s.error) for s in page.scores] == [
        ("judge", "error", "ValueError: bad"),
        ("z", "pass", None),
    ]
