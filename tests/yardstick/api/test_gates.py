from __future__ import annotations

import pydantic
import pytest

from yardstick.api.gates import Gate, check_gates

pytestmark = pytest.mark.unit


@pytest.mark.parametrize(
    ("text", "metric", "op", "threshold"),
    [
        ("order_correctness>=0.9", "order_correctness", ">=", 0.9),
        ("recall@10 > .5", "recall@10", ">", 0.5),
        ("latency_p95_ms<=250", "latency_p95_ms", "<=", 250.0),
        ("hallucination_rate < 1e-2", "hallucination_rate", "<", 0.01),
    ],
)
def test_short_forms(text: str, metric: str, op: str, threshold: float) -> None:
    gate = Gate.model_validate(text)
    assert (gate.metric, gate.op, gate.threshold) == (metric, op, threshold)


@pytest.mark.parametrize("text", ["x=1", "x>=", ">=0.9", "x>=nan", "x>=inf", "x >= 0.9 extra"])
def test_malformed_gates_are_refused(text: str) -> None:
    with pytest.raises(pydantic.ValidationError):
        Gate.model_validate(text)


def test_checks_say_why_and_not_measured_fails() -> None:
    gates = [Gate.model_validate(g) for g in ("a>=0.9", "b<0.1", "c>=0.5")]
    results = check_gates(gates, {"a": 0.91, "b": 0.2, "c": None})
    assert [(r.passed, r.reason) for r in results] == [
        (True, "a = 0.91 meets a>=0.9"),
        (False, "b = 0.2 misses b<0.1"),
        (False, "c was not measured"),
    ]
