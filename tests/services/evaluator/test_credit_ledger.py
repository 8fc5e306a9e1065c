"""The worker's park/unpark decisions: a task runs within its experiment's credits, waits beyond
them and starts when one ends, goes back when the credits are gone, runs as before without a grant."""

from __future__ import annotations

import asyncio

import pytest

from services.evaluator.credit_ledger import CreditLedger
from shared.contracts.credits import CreditGrant

pytestmark = pytest.mark.unit


class Grants:
    def __init__(self) -> None:
        self.by_experiment: dict[str, CreditGrant] = {}

    def set(self, experiment_id: str, revision: int = 1, **grants: int) -> None:
        c = max(1, sum(grants.values()))
        self.by_experiment[experiment_id] = CreditGrant(
            experiment_id=experiment_id, concurrency=c, grants=grants, revision=revision, updated_at=0
        )

    def get(self, experiment_id: str) -> CreditGrant | None:
        return self.by_experiment.get(experiment_id)


def states(turns: list[asyncio.Future[bool]]) -> list[str]:
    return ["park" if not t.done() else ("run" if t.result() else "return") for t in turns]


async def test_tasks_beyond_the_credits_park_and_start_when_one_ends() -> None:
    grants = Grants()
    grants.set("e", me=2, other=2)
    ledger = CreditLedger("me", 10, grants.get)
    turns = [ledger.turn("e") for _ in range(4)]
    assert states(turns) == ["run", "run", "park", "park"]
    assert (ledger.running, ledger.parked) == (2, 2)
    ledger.finished("e")
    assert states(turns) == ["run", "run", "run", "park"]
    assert ledger.running_of("e") == 2


async def test_credits_are_per_experiment() -> None:
    grants = Grants()
    grants.set("a", me=1)
    grants.set("b", me=1)
    ledger = CreditLedger("me", 10, grants.get)
    turns = [ledger.turn("a"), ledger.turn("a"), ledger.turn("b")]
    assert states(turns) == ["run", "park", "run"]
    ledger.finished("b")
    assert states(turns) == ["run", "park", "run"]  # a's credit is still taken


async def test_without_a_grant_tasks_run_up_to_the_slots() -> None:
    ledger = CreditLedger("me", 2, Grants().get)
    turns = [ledger.turn("e") for _ in range(3)]
    assert states(turns) == ["run", "run", "park"]
    ledger.finished("e")
    assert states(turns) == ["run", "run", "run"]


async def test_parked_tasks_go_back_when_the_grant_moves_away() -> None:
    grants = Grants()
    grants.set("e", me=1, other=1)
    ledger = CreditLedger("me", 10, grants.get)
    turns = [ledger.turn("e") for _ in range(3)]
    grants.set("e", revision=2, me=0, other=2)
    ledger.reconsider()
    assert states(turns) == ["run", "return", "return"]
    assert ledger.parked == 0


async def test_a_worker_the_grant_does_not_name_waits_for_the_next_grant() -> None:
    grants = Grants()
    grants.set("e", other=2)
    ledger = CreditLedger("new", 10, grants.get)
    turns = [ledger.turn("e"), ledger.turn("e")]
    assert states(turns) == ["park", "park"]
    grants.set("e", revision=2, other=1, new=1)
    ledger.reconsider()
    assert states(turns) == ["run", "park"]


async def test_a_grant_deleted_lets_parked_tasks_run_as_without_credits() -> None:
    grants = Grants()
    grants.set("e", me=1)
    ledger = CreditLedger("me", 10, grants.get)
    turns = [ledger.turn("e"), ledger.turn("e")]
    del grants.by_experiment["e"]
    ledger.reconsider()
    assert states(turns) == ["run", "run"]


async def test_draining_hands_back_every_parked_task() -> None:
    grants = Grants()
    grants.set("e", me=1)
    changes: list[None] = []
    ledger = CreditLedger("me", 10, grants.get, on_change=lambda: changes.append(None))
    turns = [ledger.turn("e") for _ in range(3)]
    ledger.drain()
    assert states(turns) == ["run", "return", "return"]
    assert changes and ledger.parked == 0
    ledger.finished("e")
    assert ledger.running == 0


async def test_a_cancelled_wait_is_dropped() -> None:
    grants = Grants()
    grants.set("e", me=1)
    ledger = CreditLedger("me", 10, grants.get)
    turns = [ledger.turn("e"), ledger.turn("e")]
    turns[1].cancel()
    ledger.finished("e")
    assert ledger.running == 0 and ledger.parked == 0


async def test_when_the_slots_are_full_the_oldest_parked_task_of_any_experiment_starts_first() -> None:
    ledger = CreditLedger("me", 2, Grants().get)
    order = ["a", "b", "a", "b", "a", "c"]
    turns = [ledger.turn(e) for e in order]
    assert states(turns) == ["run", "run", "park", "park", "park", "park"]
    started = []
    for finishing in ["a", "b", "a", "b"]:
        before = states(turns)
        ledger.finished(finishing)
        started += [i for i, (was, now) in enumerate(zip(before, states(turns), strict=True)) if was != now]
    assert started == [2, 3, 4, 5]  # arrival order across experiments, not experiment by experiment
    assert (ledger.running, ledger.parked) == (2, 0)
