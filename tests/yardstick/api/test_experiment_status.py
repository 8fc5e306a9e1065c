"""The experiment status enum and its transition table: every allowed and every refused change."""

from __future__ import annotations

import itertools

import pytest

from yardstick.api.experiment_status import INITIAL, TERMINAL_STATUSES, TRANSITIONS, ExperimentStatus

pytestmark = pytest.mark.unit

S = ExperimentStatus

ALLOWED = {
    (S.RUNNING, S.FINALIZING),
    (S.RUNNING, S.FAILED),
    (S.RUNNING, S.CANCELLED),
    (S.FINALIZING, S.COMPLETED),
    (S.FINALIZING, S.FAILED),
    (S.FINALIZING, S.BUDGET_EXHAUSTED),
}
"""Written out here, not read from the table, so a change to the table must change this test."""


def test_the_statuses_are_these_six_and_pending_is_gone() -> None:
    assert [s.value for s in S] == [
        "running",
        "finalizing",
        "completed",
        "failed",
        "cancelled",
        "budget_exhausted",
    ]
    assert "pending" not in set(S)
    assert set(TRANSITIONS) == set(S)
    assert INITIAL is S.RUNNING


@pytest.mark.parametrize(("source", "target"), sorted(ALLOWED))
def test_allowed(source: ExperimentStatus, target: ExperimentStatus) -> None:
    assert source.can_become(target)
    assert source in S.sources(target)


@pytest.mark.parametrize(
    ("source", "target"), [pair for pair in itertools.product(S, S) if pair not in ALLOWED]
)
def test_refused(source: ExperimentStatus, target: ExperimentStatus) -> None:
    assert not source.can_become(target)
    assert source not in S.sources(target)


def test_the_sets_follow_from_the_table() -> None:
    assert {s for s in S if s.terminal} == TERMINAL_STATUSES
    assert {S.COMPLETED, S.FAILED, S.CANCELLED, S.BUDGET_EXHAUSTED} == TERMINAL_STATUSES
    assert {s for s in S if s.aggregated} == {S.COMPLETED, S.BUDGET_EXHAUSTED}
    assert {s for s in S if s.active} == {S.RUNNING, S.FINALIZING}
    assert {s for s in S if s.cancellable} == {S.RUNNING}
    assert {s for s in S if s.rescorable} == TERMINAL_STATUSES
    assert S.sources(S.FINALIZING) == {S.RUNNING}
    assert S.sources(S.FAILED) == {S.RUNNING, S.FINALIZING}


def test_a_status_is_its_string() -> None:
    """Rows, JSON and the CLI compare plain strings with it."""
    plain: str = "completed"  # a str as a row or JSON holds it (not a Literal)
    assert plain == S.COMPLETED and str(S.COMPLETED) == plain and "cancelled" in TERMINAL_STATUSES
    assert S("finalizing") is S.FINALIZING
    with pytest.raises(ValueError):
        S("pending")
