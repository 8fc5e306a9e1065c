"""An experiment's status and the changes between statuses that are allowed: the one definition the
coordinator (API, lifecycle, UI), the CLI and the SDK import.

An experiment is created ``running`` (its items are stored in the same transaction), and becomes
``failed`` at once when nothing matched. A ``running`` one whose items are all terminal is claimed
by the finalizer (``finalizing``) and ends ``completed``, or ``failed`` when finalization raises,
or ``budget_exhausted`` when its ``max_cost`` stopped the dispatching (the items it finished are
scored and aggregated, the others are errors "not run: budget exhausted").
Only a ``running`` experiment can be ``cancelled`` (finalization is short and not interrupted).
``completed``, ``budget_exhausted``, ``failed`` and ``cancelled`` are terminal: nothing changes them
any more, they can be re-scored and deleted. Pure data: no I/O, importable without a server.
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum


class ExperimentStatus(StrEnum):
    RUNNING = "running"
    FINALIZING = "finalizing"
    COMPLETED = "completed"
    FAILED = "failed"
    CANCELLED = "cancelled"
    BUDGET_EXHAUSTED = "budget_exhausted"

    @property
    def terminal(self) -> bool:
        """Nothing changes the experiment any more."""
        return not TRANSITIONS[self]

    @property
    def active(self) -> bool:
        """Items are still being run or scored: it cannot be deleted or re-scored yet."""
        return not self.terminal

    @property
    def aggregated(self) -> bool:
        """Finished with aggregates (completed, or stopped by its budget): reports and comparisons
        can read it."""
        return self in (ExperimentStatus.COMPLETED, ExperimentStatus.BUDGET_EXHAUSTED)

    @property
    def cancellable(self) -> bool:
        return self.can_become(ExperimentStatus.CANCELLED)

    @property
    def rescorable(self) -> bool:
        """Its stored outputs are final, so a re-scoring experiment can read them."""
        return self.terminal

    def can_become(self, target: ExperimentStatus) -> bool:
        return target in TRANSITIONS[self]

    @classmethod
    def sources(cls, target: ExperimentStatus) -> frozenset[ExperimentStatus]:
        """The statuses an experiment may be in to change to ``target``."""
        return frozenset(s for s in cls if s.can_become(target))


_S = ExperimentStatus

TRANSITIONS: Mapping[ExperimentStatus, frozenset[ExperimentStatus]] = {
    _S.RUNNING: frozenset({_S.FINALIZING, _S.FAILED, _S.CANCELLED}),
    _S.FINALIZING: frozenset({_S.COMPLETED, _S.FAILED, _S.BUDGET_EXHAUSTED}),
    _S.COMPLETED: frozenset(),
    _S.FAILED: frozenset(),
    _S.CANCELLED: frozenset(),
    _S.BUDGET_EXHAUSTED: frozenset(),
}
"""Every allowed change of status; any other is refused."""

INITIAL = _S.RUNNING
"""The status every experiment is created in."""

TERMINAL_STATUSES: frozenset[ExperimentStatus] = frozenset(s for s in _S if s.terminal)
"""The statuses that change no more (their values are also the names of the final events)."""

__all__ = ["INITIAL", "TERMINAL_STATUSES", "TRANSITIONS", "ExperimentStatus"]
