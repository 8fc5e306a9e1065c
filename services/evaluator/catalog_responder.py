"""Answers ``eval.evaluators``: the evaluators (built-in and plugins) this worker has loaded, with
their argument schemas, so the coordinator checks an experiment against what really scores it.

Core NATS request/reply with no queue group: every worker answers (scatter-gather), nothing to ack.
"""

from __future__ import annotations

from functools import cached_property

from nats.aio.msg import Msg

from shared.contracts.evaluator_catalog import WorkerEvaluators
from shared.evaluators.catalog import describe_loaded
from shared.evaluators.registry import EvaluatorRegistry


class CatalogResponder:
    def __init__(self, worker_id: str, registry: EvaluatorRegistry) -> None:
        self.worker_id = worker_id
        self.registry = registry

    @cached_property
    def answer(self) -> bytes:
        """Built once: the registry does not change after start-up."""
        catalog = WorkerEvaluators(
            worker_id=self.worker_id,
            evaluators=describe_loaded(self.registry),
            plugin_errors=list(self.registry.plugin_errors),
        )
        return catalog.model_dump_json().encode()

    async def respond(self, msg: Msg) -> None:
        if msg.reply:
            await msg.respond(self.answer)
