"""Which evaluators the running eval workers have loaded (asked on ``eval.evaluators``, every
worker answers): an experiment's item-level evaluators are checked against these at submission,
since the workers are what will score it, not the coordinator's own registry."""

from __future__ import annotations

from nats.aio.client import Client as NatsClient

from shared.contracts.evaluator_catalog import WorkerEvaluators
from shared.messaging.scatter_gather import gather_answers
from yardstick.api.topology import Topology


async def fleet_evaluators(nc: NatsClient, topology: Topology) -> list[WorkerEvaluators]:
    """One answer per running worker (the latest, should one answer twice), sorted by worker id."""
    answers = await gather_answers(nc, topology.eval_evaluators, WorkerEvaluators)
    by_worker = {a.worker_id: a for a in answers}
    return [by_worker[w] for w in sorted(by_worker)]
