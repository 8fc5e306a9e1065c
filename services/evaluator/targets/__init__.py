"""Systems under test the worker can call, one module each, chosen by ``task.target.kind``."""

from __future__ import annotations

import aiohttp
from nats.aio.client import Client as NatsClient

from services.evaluator.targets.agent import AgentInvokeTarget
from services.evaluator.targets.agent_conversation import AgentConversationTarget, AgentTargetByItem
from services.evaluator.targets.answer import SearchAnswerTarget
from services.evaluator.targets.base import CallContext, Target, TargetOutput
from services.evaluator.targets.http_endpoint import HttpEndpointTarget
from services.evaluator.targets.python_task import PythonTaskTarget
from services.evaluator.targets.search import SearchQueryTarget
from yardstick.api.topology import Topology


def build_targets(
    nc: NatsClient, http_session: aiohttp.ClientSession, topology: Topology
) -> dict[str, Target]:
    """Target implementations by ``kind``."""
    return {
        "agent": AgentTargetByItem(nc, topology),
        "search": SearchQueryTarget(nc, topology.search_query),
        "answer": SearchAnswerTarget(nc, topology.search_answer),
        "http": HttpEndpointTarget(http_session),
        "python": PythonTaskTarget(nc, topology),
    }


__all__ = [
    "AgentConversationTarget",
    "AgentInvokeTarget",
    "AgentTargetByItem",
    "CallContext",
    "HttpEndpointTarget",
    "PythonTaskTarget",
    "SearchAnswerTarget",
    "SearchQueryTarget",
    "Target",
    "TargetOutput",
    "build_targets",
]
