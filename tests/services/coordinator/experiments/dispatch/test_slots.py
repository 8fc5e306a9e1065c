"""The dispatcher's in-memory ledger: a slot frees once per task, read-ahead rows fill free slots
in item order, rows not published go back in front."""

from __future__ import annotations

import pytest

from services.coordinator.experiments.dispatch.slots import ExperimentSlots
from shared.db.models import Experiment, ExperimentItem
from yardstick.api.experiment_config import ExperimentConfig

pytestmark = pytest.mark.unit


def experiment(concurrency: int) -> Experiment:
    config = ExperimentConfig.model_validate(
        {"concurrency": concurrency, "target": {"kind": "agent"}, "evaluators": []}
    )
    return Experiment(id="e", name="e", config=config, total=10, done=0)


def rows(n: int, start: int = 0) -> list[ExperimentItem]:
    return [
        ExperimentItem(id=100 + i, item_id=f"i{i}", trial=0, position=i, experiment_id="e")
        for i in range(start, start + n)
    ]


def test_take_fills_only_the_free_slots_in_order() -> None:
    slots = ExperimentSlots(experiment(2))
    slots.read_ahead(rows(5), asked=5)
    assert [r.item_id for r in slots.take()] == ["i0", "i1"]
    assert slots.free == 0 and slots.take() == []
    assert slots.cursor == (4, 0, 104) and not slots.exhausted


def test_a_slot_frees_once_per_task_and_never_for_an_unknown_one() -> None:
    slots = ExperimentSlots(experiment(2))
    slots.read_ahead(rows(3), asked=10)
    assert slots.exhausted  # fewer rows than asked: nothing more pending after the cursor
    slots.take()
    assert slots.arrived(("i0", 0)) is True
    assert slots.arrived(("i0", 0)) is False  # a redelivered result frees nothing
    assert slots.arrived(("zz", 0)) is False
    assert [r.item_id for r in slots.take()] == ["i2"]


def test_rows_not_published_go_back_in_front() -> None:
    slots = ExperimentSlots(experiment(3))
    slots.read_ahead(rows(4), asked=4)
    taken = slots.take()
    slots.give_back(taken[1:])
    assert slots.free == 2 and [r.item_id for r in slots.ahead] == ["i1", "i2", "i3"]


def test_in_flight_rows_found_terminal_free_their_slots() -> None:
    slots = ExperimentSlots(experiment(2))
    slots.load_in_flight([("i0", 0, 100), ("i1", 0, 101)])
    assert slots.free == 0
    slots.settled({101})
    assert slots.free == 1 and set(slots.in_flight) == {("i0", 0)}
    slots.arrived(("i0", 0))
    assert slots.idle


def test_it_reads_ahead_below_half_a_wave_until_nothing_is_left() -> None:
    slots = ExperimentSlots(experiment(4))
    assert slots.hungry and slots.want_ahead == 4
    slots.read_ahead(rows(4), asked=4)
    assert not slots.hungry
    slots.take()
    assert slots.hungry and slots.want_ahead == 4
    slots.read_ahead(rows(1, start=4), asked=4)
    assert slots.exhausted and not slots.hungry
