from __future__ import annotations

import pydantic
import pytest

from shared.analysis.pass_rule import PassPolicy, item_passed, stored_policy
from tests.evaluator_registry import policy_of
from tests.shared.analysis.in_memory import compute_aggregates
from yardstick.api.evaluation import EvaluatorSpec
from yardstick.api.gates import Gate
from yardstick.api.pass_criteria import PassCriterion
from yardstick.api.run_data import RunData, ScoredItem

pytestmark = pytest.mark.unit

RETRIEVAL = policy_of([EvaluatorSpec(name="retrieval")])


def ok(**scores: float | None) -> ScoredItem:
    return ScoredItem(item_id="x", status="ok", scores=dict(scores))


def test_default_rule() -> None:
    item = ok(a=0.5, b=None, c=True)
    assert item_passed(item, PassPolicy(0.5))
    assert not item_passed(item, PassPolicy(0.6))
    assert PassPolicy().outcome(ScoredItem(item_id="x", status="error", scores={"a": 1.0})) == "error"
    # a declared lower-is-better rate passes when low; nothing is guessed from a name
    rag = policy_of([EvaluatorSpec(name="hallucination_rate")])
    assert rag.passed(ok(hallucination_rate=0.0)) and not rag.passed(ok(hallucination_rate=1.0))
    assert PassPolicy().criterion("ttft_ms").describe() == ">= 0.5"
    assert PassPolicy().criterion("latency_ms").describe() == "informational"


def test_nothing_measured_is_never_a_pass() -> None:
    policy = PassPolicy()
    assert policy.outcome(ok()) == "not_measured"
    assert policy.outcome(ok(faithfulness=None)) == "not_measured"
    assert policy.outcome(ok(latency_ms=900.0)) == "not_measured"  # informational only
    assert policy.reasons(ok(faithfulness=None)) == ["not measured: no gating metric has a value"]


def test_retrieval_gates_on_recall_at_the_largest_k() -> None:
    # three relevant documents, all found: precision@10 is 0.3 at best, and must not fail the query
    assert RETRIEVAL.outcome(ok(**{"recall@10": 1.0, "precision@10": 0.3, "ndcg@10": 0.4})) == "passed"
    assert RETRIEVAL.outcome(ok(**{"recall@10": 0.4, "recall@3": 1.0})) == "failed"
    assert RETRIEVAL.outcome(ok(**{"recall@3": 0.0, "recall@10": 0.5})) == "passed"
    # a null query passes when nothing came back, its rank metrics not measured
    assert RETRIEVAL.outcome(ok(**{"recall@10": None, "null_query_correct": 1.0})) == "passed"
    assert RETRIEVAL.outcome(ok(**{"recall@10": None, "null_query_correct": 0.0})) == "failed"
    five = policy_of([EvaluatorSpec(name="retrieval", args={"ks": [1, 5]})])
    assert five.criterion("recall@5").describe() == ">= 0.5"
    assert five.criterion("recall@1").describe() == "informational"


def test_trajectory_pass_applies_the_scenarios_policy() -> None:
    """require_match: false, tool checks passing, the match failing: the scenario passes."""
    policy = policy_of([EvaluatorSpec(name="trajectory_match"), EvaluatorSpec(name="trajectory_pass")])
    item = ok(trajectory_match=0.0, mandatory_tools_check=1.0, trajectory_pass=1.0)
    assert policy.outcome(item) == "passed"
    # without trajectory_pass, the match alone decides
    assert policy_of([EvaluatorSpec(name="trajectory_match")]).outcome(item) == "failed"


def test_overrides_win_and_explain_failures() -> None:
    policy = policy_of(
        [EvaluatorSpec(name="retrieval")],
        pass_criteria={"ndcg@10": PassCriterion.model_validate(">=0.7")},
    )
    item = ok(**{"recall@10": 1.0, "ndcg@10": 0.5})
    assert policy.outcome(item) == "failed"
    assert policy.reasons(item) == ["ndcg@10=0.5 (needs >= 0.7)"]


@pytest.mark.parametrize(
    ("text", "direction", "threshold"),
    [
        (">=0.8", "higher_is_better", 0.8),
        ("<= .1", "lower_is_better", 0.1),
        ("informational", "informational", None),
    ],
)
def test_short_forms(text: str, direction: str, threshold: float | None) -> None:
    criterion = PassCriterion.model_validate(text)
    assert (criterion.direction, criterion.threshold) == (direction, threshold)


@pytest.mark.parametrize("text", ["> 0.8", "0.8", ">=nan", "informational 1", ""])
def test_bad_short_forms_are_refused(text: str) -> None:
    with pytest.raises(pydantic.ValidationError):
        PassCriterion.model_validate(text)


def test_aggregates_count_not_measured_and_warn() -> None:
    run = RunData(
        experiment_id="e",
        name="judged without a key",
        items=[
            ok(faithfulness=None),
            ok(faithfulness=None),
            ScoredItem(item_id="y", status="error", error="TargetTimeout"),
        ],
    )
    agg = compute_aggregates(run)
    assert (agg.passed, agg.not_measured, agg.pass_rate) == (0, 2, 0.0)
    kinds = {(w.kind, w.metric) for w in agg.warnings}
    assert kinds == {("measured_nothing", "faithfulness"), ("error_rate", None)}
    assert compute_aggregates(run, max_error_rate=0.5).warnings[-1].kind == "measured_nothing"


def test_aggregates_store_the_criteria_they_used() -> None:
    run = RunData(experiment_id="e", name="r", items=[ok(**{"recall@10": 0.9, "precision@10": 0.2})])
    agg = compute_aggregates(run, RETRIEVAL)
    assert agg.pass_rate == 1.0
    assert agg.pass_criteria["precision@10"].describe() == "informational"
    assert stored_policy(agg).outcome(run.items[0]) == "passed"


def test_gates_are_checked_on_the_runs_means() -> None:
    run = RunData(experiment_id="e", name="r", items=[ok(order_correctness=1.0), ok(order_correctness=0.6)])
    gates = [Gate.model_validate("order_correctness>=0.9"), Gate.model_validate("pass_rate>=0.5")]
    agg = compute_aggregates(run, gates=gates)
    assert [(g.gate, g.passed) for g in agg.gates] == [
        ("order_correctness>=0.9", False),
        ("pass_rate>=0.5", True),
    ]
    assert agg.gates[0].reason == "order_correctness = 0.8 misses order_correctness>=0.9"
