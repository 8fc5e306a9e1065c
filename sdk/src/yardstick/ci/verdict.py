"""The CI gate's verdict and exit code, by the rules of ``yardstick run --fail-on-regression``.

Exit codes (the CLI's, kept faithfully so a job fails the same way whichever of the two it calls):

- 0 ``pass``: the run completed, every absolute gate held and the comparison (if any) did not fail;
- 1 ``regression``: an absolute gate (``--gate``) was missed, or, with ``fail_on_regression``, the
  comparison failed (a must-pass item broke, or a primary metric regressed significantly);
- 2 ``bad-input``: a usage error (a missing or malformed option, a request the coordinator refused, a
  coordinator that cannot be reached, a task that cannot be loaded);
- 3 ``run-failed``: the run itself went wrong (failed, cancelled, stopped by its budget, more errors
  than ``max_error_rate`` allows, an evaluator that measured nothing); or ``inconclusive``: with
  ``fail_on_regression``, no regression but some primary metric had too few items to detect any
  change (a gate that could not have failed is not a pass).

The rules are checked in that order: a run that went wrong is never reported as a regression.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel

from yardstick.api.experiment_status import ExperimentStatus
from yardstick.api.experiments import ExperimentOut

Verdict = Literal["pass", "regression", "bad-input", "run-failed", "inconclusive"]
EXIT_CODES: dict[Verdict, int] = {
    "pass": 0,
    "regression": 1,
    "bad-input": 2,
    "run-failed": 3,
    "inconclusive": 3,
}


class Outcome(BaseModel, frozen=True):
    """What the gate decided, why (one sentence) and the job's exit code."""

    verdict: Verdict
    reason: str

    @property
    def exit_code(self) -> int:
        return EXIT_CODES[self.verdict]


def outcome(
    experiment: ExperimentOut, *, regression: bool, inconclusive: bool, fail_on_regression: bool
) -> Outcome:
    """The verdict on a finished ``experiment`` whose comparison (if any) found ``regression`` /
    ``inconclusive``."""
    if experiment.status == ExperimentStatus.BUDGET_EXHAUSTED:
        return Outcome(verdict="run-failed", reason=f"budget exhausted: {experiment.error or ''}".strip())
    if experiment.status != ExperimentStatus.COMPLETED:
        reason = f"experiment {experiment.status}: {experiment.error or 'no error recorded'}"
        return Outcome(verdict="run-failed", reason=reason)
    aggregates = experiment.aggregates
    if aggregates is not None and aggregates.warnings:
        return Outcome(verdict="run-failed", reason="; ".join(w.message for w in aggregates.warnings))
    missed = [g.reason for g in (aggregates.gates if aggregates else []) if not g.passed]
    if missed:
        return Outcome(verdict="regression", reason="; ".join(missed))
    if fail_on_regression and regression:
        return Outcome(verdict="regression", reason="the comparison with the baseline failed")
    if fail_on_regression and inconclusive:
        return Outcome(verdict="inconclusive", reason="too few items to detect any change")
    return Outcome(verdict="pass", reason="no regression")
