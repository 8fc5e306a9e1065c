"""How many task slots the running eval workers hold: asked on ``eval.capacity`` (every worker
answers), so that an experiment asking for more concurrency than the fleet has, or submitted while
no worker runs, is told so at once instead of silently getting less."""

from __future__ import annotations

from nats.aio.client import Client as NatsClient

from shared.contracts.capacity import WorkerCapacity
from shared.messaging.scatter_gather import gather_answers
from yardstick.api.topology import Topology


async def fleet_capacity(nc: NatsClient, topology: Topology) -> list[WorkerCapacity]:
    """Every running worker's answer (see ``gather_answers`` for how long it waits)."""
    return await gather_answers(nc, topology.eval_capacity, WorkerCapacity)


def capacity_warnings(concurrency: int, fleet: list[WorkerCapacity]) -> list[str]:
    """What a user should know about running at ``concurrency`` on this fleet, in words."""
    if not fleet:
        return [
            "no eval worker answered: the experiment waits until one runs "
            "(`yardstick stack status`; start more with `docker compose up --scale evaluator=N`)"
        ]
    slots = sum(w.concurrency for w in fleet)
    if concurrency > slots:
        return [
            f"concurrency {concurrency} asks for more than the {len(fleet)} running eval worker(s) hold "
            f"({slots} task slots): at most {slots} items run at once; start more workers or raise "
            "EVAL_CONCURRENCY"
        ]
    return []
