"""Is a python target served? Asked at submission on ``<ns>.task.alive.<name>`` (queue group: one
task worker answers), so that an experiment naming a function nobody runs is refused at once, with
the command that starts one, instead of every item timing out into an error."""

from __future__ import annotations

import nats.errors
from nats.aio.client import Client as NatsClient
from pydantic import ValidationError

from services.coordinator.errors import NoTaskWorker
from yardstick.api.eval_messages import PythonTarget, TargetSpec
from yardstick.api.task_messages import TaskWorkerInfo
from yardstick.api.topology import Topology

PROBE_TIMEOUT_S = 1.0


async def require_task_worker(
    nc: NatsClient, topology: Topology, target: TargetSpec
) -> TaskWorkerInfo | None:
    """The answering worker for a python target (None for other kinds); ``NoTaskWorker`` if none answers."""
    if not isinstance(target, PythonTarget):
        return None
    try:
        reply = await nc.request(topology.task_alive(target.name), b"", timeout=PROBE_TIMEOUT_S)
        return TaskWorkerInfo.model_validate_json(reply.data)
    except (nats.errors.NoRespondersError, TimeoutError, ValidationError):
        raise NoTaskWorker(
            f"no task worker serves the python target {target.name!r}: decorate your function with "
            f"@yardstick.task({target.name!r}) and start `yardstick-worker MODULE` (the SDK's command; "
            "`yardstick worker` with the server's) (NATS_URL and "
            f"NATS_NAMESPACE={topology.namespace!r} as the stack's; scale with more processes). A worker "
            "whose code changed on disk stops answering: restart it"
        ) from None
