"""How many task slots the running eval workers hold: asked on ``eval.capacity`` (every worker
answers), so that an experiment asking for more concurrency than the fleet has, or submitted while
no worker runs, is told so at once instead of silently getting less."""

from __future__ import annotations

import asyncio
import contextlib

from nats.aio.client import Client as NatsClient
from nats.aio.msg import Msg
from pydantic import ValidationError

from shared.contracts.capacity import WorkerCapacity
from shared.contracts.topology import Topology

FIRST_ANSWER_S = 0.3
QUIET_S = 0.05


async def fleet_capacity(nc: NatsClient, topology: Topology) -> list[WorkerCapacity]:
    """Every worker's answer: wait up to ``FIRST_ANSWER_S`` for the first, then until ``QUIET_S``
    passes without another."""
    answers: list[WorkerCapacity] = []
    arrived = asyncio.Event()

    async def collect(msg: Msg) -> None:
        with contextlib.suppress(ValidationError):
            answers.append(WorkerCapacity.model_validate_json(msg.data))
            arrived.set()

    inbox = nc.new_inbox()
    sub = await nc.subscribe(inbox, cb=collect)
    try:
        await nc.publish(topology.eval_capacity, b"", reply=inbox)
        timeout = FIRST_ANSWER_S
        while True:
            try:
                await asyncio.wait_for(arrived.wait(), timeout)
            except TimeoutError:
                return answers
            arrived.clear()
            timeout = QUIET_S
    finally:
        await sub.unsubscribe()


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
