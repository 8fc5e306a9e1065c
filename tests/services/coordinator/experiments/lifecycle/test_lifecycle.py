"""The lifecycle's status changes on a row in hand: what the table allows happens, the rest is a 409
with a sentence."""

from __future__ import annotations

import pytest

from services.coordinator.errors import IllegalTransition
from services.coordinator.experiments.lifecycle import change, refusal
from shared.db.models import Experiment
from yardstick.api.eval_messages import AgentTarget
from yardstick.api.experiment_config import ExperimentConfig
from yardstick.api.experiment_status import ExperimentStatus

pytestmark = pytest.mark.unit

S = ExperimentStatus


def experiment(status: ExperimentStatus) -> Experiment:
    config = ExperimentConfig(target=AgentTarget(), evaluators=[])
    return Experiment(id="e1", name="e", config=config, status=status)


def test_an_allowed_change_happens_and_a_terminal_one_is_stamped() -> None:
    row = experiment(S.RUNNING)
    change(row, S.FINALIZING)
    assert row.status is S.FINALIZING and row.completed_at is None
    change(row, S.COMPLETED)
    assert row.status is S.COMPLETED and row.completed_at is not None


@pytest.mark.parametrize(
    ("source", "target", "sentence"),
    [
        (
            S.RUNNING,
            S.COMPLETED,
            "experiment 'e1' is running: it can become finalizing, failed or cancelled, not completed",
        ),
        (S.COMPLETED, S.FAILED, "experiment 'e1' is completed, which is final: it cannot become failed"),
        (S.CANCELLED, S.RUNNING, "experiment 'e1' is cancelled, which is final: it cannot become running"),
    ],
)
def test_an_illegal_change_is_a_409_that_says_why(
    source: ExperimentStatus, target: ExperimentStatus, sentence: str
) -> None:
    row = experiment(source)
    with pytest.raises(IllegalTransition) as refused:
        change(row, target)
    assert refused.value.status_code == 409
    assert refused.value.message == sentence == refusal("e1", source, target)
    assert row.status is source
