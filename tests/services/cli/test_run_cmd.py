from __future__ import annotations

from typing import Any

import pytest
import typer

from services.cli.run_cmd import exit_code, parse_pass_criteria

pytestmark = pytest.mark.unit


def experiment(status: str = "completed", **extra: Any) -> dict[str, Any]:
    return {"status": status, "aggregates": {"warnings": []}, "regression": False, **extra}


def test_exit_codes() -> None:
    assert exit_code(experiment(), fail_on_regression=True) == 0
    assert exit_code(experiment("failed"), fail_on_regression=False) == 3
    assert exit_code(experiment("cancelled"), fail_on_regression=False) == 3
    assert exit_code(experiment("budget_exhausted"), fail_on_regression=False) == 3, "like a run with errors"
    warned = experiment(
        aggregates={"warnings": [{"kind": "error_rate", "message": "10 of 10 items errored"}]}
    )
    assert exit_code(warned, fail_on_regression=False) == 3
    assert exit_code(experiment(regression=True), fail_on_regression=True) == 1
    assert exit_code(experiment(regression=True), fail_on_regression=False) == 0
    missed = experiment(
        aggregates={"warnings": [], "gates": [{"passed": False, "reason": "a = 0.5 misses a>=0.9"}]}
    )
    assert exit_code(missed, fail_on_regression=False) == 1


def test_pass_options() -> None:
    assert parse_pass_criteria(
        ["ndcg@10>=0.7", "hallucination_rate <= 0.1", "precision@10=informational"]
    ) == {
        "ndcg@10": ">=0.7",
        "hallucination_rate": "<=0.1",
        "precision@10": "informational",
    }
    with pytest.raises(typer.BadParameter, match="use METRIC>=X"):
        parse_pass_criteria(["ndcg@10"])


def test_an_inconclusive_comparison_is_not_a_silent_pass() -> None:
    assert exit_code(experiment(), fail_on_regression=True, inconclusive=True) == 3
    assert exit_code(experiment(), fail_on_regression=False, inconclusive=True) == 0
    assert exit_code(experiment(regression=True), fail_on_regression=True, inconclusive=True) == 1
