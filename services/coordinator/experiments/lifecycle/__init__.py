"""An experiment's lifecycle: creation (a run, or a re-scoring of a finished one), every change of
its status, cancellation, the finalizer's claim and verdict, deletion.

Which changes are allowed is the transition table of :class:`ExperimentStatus`
(``sdk/src/yardstick/api/experiment_status.py``); every status change goes through this package, which
checks it against the table, so an illegal one raises :class:`IllegalTransition` (409) whatever asked
for it. A change of a stored row is one compare-and-set statement (``store.experiments.set_status``):
of two racing changes (a cancel and the finalizer's claim) exactly one applies. Entering a terminal
status stamps ``completed_at``. ``experiments/store/`` only reads and writes the rows.
"""

from services.coordinator.experiments.lifecycle._creation import create_experiment, create_rescore
from services.coordinator.experiments.lifecycle._transitions import (
    awaiting_finalization,
    cancel_experiment,
    change,
    claim_for_finalizing,
    complete,
    delete_experiment,
    fail_finalization,
    refusal,
    transition,
)

__all__ = [
    "awaiting_finalization",
    "cancel_experiment",
    "change",
    "claim_for_finalizing",
    "complete",
    "create_experiment",
    "create_rescore",
    "delete_experiment",
    "fail_finalization",
    "refusal",
    "transition",
]
