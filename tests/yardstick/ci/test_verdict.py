"""The gate's exit codes are the CLI's: every case ``yardstick run --fail-on-regression`` decides
is decided the same way here (services/cli/run_cmd.py's ``exit_code`` is the reference)."""

from __future__ import annotations

from typing import Any

import pytest

from services.cli.run_cmd import exit_code
from yardstick.api.experiments import ExperimentOut
from yardstick.ci.verdict import outcome

pytestmark = pytest.mark.unit

AGGREGATES: dict[str, Any] = {
    "experiment_id": "e1",
    "name": "ci-main-0123456789ab",
    "item_count": 10,
    "ok_count": 10,
    "error_count": 0,
    "error_rate": 0.0,
    "pass_threshold": 0.5,
    "passed": 10,
    "pass_rate": 1.0,
    "metrics": {},
    "breakdowns": {},
    "latency": {"count": 0},
    "tokens": None,
    "run_scores": [],
}
WARNED = {"warnings": [{"kind": "error_rate", "message": "3 of 10 items errored (max 0%)"}]}
MISSED = {"gates": [{"gate": "exact_match>=0.9", "value": 0.5, "passed": False, "reason": "0.5 < 0.9"}]}
HELD = {"gates": [{"gate": "exact_match>=0.5", "value": 0.9, "passed": True, "reason": "ok"}]}


def experiment(status: str, regression: bool | None, **aggregates: Any) -> ExperimentOut:
    return ExperimentOut.model_validate(
        {
            "id": "e1",
            "name": "ci-main-0123456789ab",
            "status": status,
            "dataset": "qa",
            "dataset_version": 1,
            "target": {"kind": "agent"},
            "concurrency": 10,
            "progress": {"total": 10, "done": 10, "errors": 0, "in_flight": 0, "pending": 0},
            "aggregates": AGGREGATES | aggregates if status == "completed" else None,
            "regression": regression,
            "error": None if status == "completed" else "stopped",
            "created_at": "2026-11-28T10:00:00Z",
        }
    )


CASES = [
    experiment(status, regression, **extra)
    for status in ("completed", "failed", "cancelled", "budget_exhausted")
    for regression in (None, False, True)
    for extra in ({}, WARNED, MISSED, HELD)
]


@pytest.mark.parametrize("fail_on_regression", [True, False])
@pytest.mark.parametrize("inconclusive", [True, False])
def test_every_case_exits_as_the_cli_would(fail_on_regression: bool, inconclusive: bool) -> None:
    for case in CASES:
        decided = outcome(
            case,
            regression=bool(case.regression),
            inconclusive=inconclusive,
            fail_on_regression=fail_on_regression,
        )
        cli = exit_code(case.model_dump(mode="json"), fail_on_regression, inconclusive)
        assert decided.exit_code == cli, (case.status, case.regression, case.aggregates, decided)


def test_verdicts_name_what_happened() -> None:
    def verdict(case: ExperimentOut, regression: bool = False, inconclusive: bool = False) -> str:
        return outcome(
            case, regression=regression, inconclusive=inconclusive, fail_on_regression=True
        ).verdict

    assert verdict(experiment("completed", False)) == "pass"
    assert verdict(experiment("completed", True), regression=True) == "regression"
    assert verdict(experiment("completed", False, **MISSED)) == "regression"
    assert verdict(experiment("completed", False, **WARNED)) == "run-failed"
    assert verdict(experiment("budget_exhausted", None)) == "run-failed"
    assert verdict(experiment("completed", False), inconclusive=True) == "inconclusive"
    failed = outcome(
        experiment("failed", None), regression=False, inconclusive=False, fail_on_regression=True
    )
    assert failed.reason == "experiment failed: stopped"
