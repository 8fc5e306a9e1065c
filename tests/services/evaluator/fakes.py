"""Test doubles for the eval worker tests: a fake request/reply target on NATS and task helpers."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from nats.aio.client import Client as NatsClient
from nats.aio.msg import Msg
from nats.aio.subscription import Subscription
from nats.js import JetStreamContext

from yardstick.api.agent_messages import AgentInvokeRequest, AgentInvokeResponse, OrderLine, TokenUsage
from yardstick.api.eval_messages import (
    RESULT_BATCH_HEADER,
    TASK_BATCH_HEADER,
    AgentTarget,
    EvalResult,
    EvalResultBatch,
    EvalTask,
    EvalTaskBatch,
    batch_message_id,
)
from yardstick.api.evaluation import EvaluatorSpec
from yardstick.api.nats_interest import subscriptions_registered
from yardstick.api.topology import COORDINATOR_RESULTS_CONSUMER, EVAL_WORKERS_CONSUMER, Topology

Answer = Callable[[AgentInvokeRequest], Awaitable[AgentInvokeResponse | None]]


def ok_response(req: AgentInvokeRequest) -> AgentInvokeResponse:
    return AgentInvokeResponse(
        order_items=[OrderLine(item_id="hash-brown", name="Hash Brown", quantity=1)],
        tool_calls=["add_item"],
        response=f"Added: {req.customer_utterance}",
        item_count=1,
        usage=TokenUsage(input_tokens=10, output_tokens=5, total_tokens=15),
    )


async def answer_at_once(req: AgentInvokeRequest) -> AgentInvokeResponse | None:
    return ok_response(req)


async def hang_on_request(req: AgentInvokeRequest) -> AgentInvokeResponse | None:
    """Never answers the utterance "hang" (the call times out), answers anything else at once."""
    return None if req.customer_utterance == "hang" else ok_response(req)


async def assert_all_settled(js: JetStreamContext, topology: Topology) -> None:
    """No task left on the eval workers' consumer: every delivery was acked (or terminated)."""
    info = await js.consumer_info(topology.eval_tasks_stream, EVAL_WORKERS_CONSUMER)
    assert info.num_ack_pending == 0 and info.num_pending == 0


@dataclass
class Seen:
    request: AgentInvokeRequest
    headers: dict[str, str]


@dataclass
class FakeAgent:
    """Answers ``agent.invoke``; ``answer`` returning None means never reply. Each request is answered
    in its own task, so a held reply does not block the next request."""

    nc: NatsClient
    subject: str
    answer: Answer = answer_at_once
    seen: list[Seen] = field(default_factory=list)
    _changed: asyncio.Condition = field(default_factory=asyncio.Condition)
    _sub: Subscription | None = None
    _replies: set[asyncio.Task[None]] = field(default_factory=set)

    async def start(self) -> FakeAgent:
        self._sub = await self.nc.subscribe(self.subject, cb=self._on_request)
        await subscriptions_registered(self.nc)
        return self

    async def stop(self) -> None:
        if self._sub is not None:
            await self._sub.unsubscribe()
        for task in self._replies:
            task.cancel()

    async def _on_request(self, msg: Msg) -> None:
        req = AgentInvokeRequest.model_validate_json(msg.data)
        async with self._changed:
            self.seen.append(Seen(req, dict(msg.headers or {})))
            self._changed.notify_all()
        task = asyncio.create_task(self._reply(msg, req))
        self._replies.add(task)
        task.add_done_callback(self._replies.discard)

    async def _reply(self, msg: Msg, req: AgentInvokeRequest) -> None:
        response = await self.answer(req)
        if response is not None:
            await msg.respond(response.model_dump_json().encode())

    async def wait_for(self, predicate: Callable[[list[Seen]], bool], within_s: float = 10.0) -> list[Seen]:
        async with self._changed:
            await asyncio.wait_for(self._changed.wait_for(lambda: predicate(self.seen)), within_s)
            return list(self.seen)


def agent_task(
    topology_item: str,
    utterance: str = "one hash brown",
    *,
    experiment_id: str = "exp-1",
    evaluators: list[EvaluatorSpec] | None = None,
    timeout_s: float = 5.0,
) -> EvalTask:
    return EvalTask(
        experiment_id=experiment_id,
        item_id=topology_item,
        input={"customer_utterance": utterance},
        expected_output={"order_items": []},
        target=AgentTarget(),
        evaluators=evaluators or [],
        timeout_s=timeout_s,
    )


async def publish_task(js: JetStreamContext, topology: Topology, task: EvalTask) -> None:
    await js.publish(
        topology.eval_task, task.model_dump_json().encode(), headers={"Nats-Msg-Id": task.task_id}
    )


async def publish_batch(js: JetStreamContext, topology: Topology, tasks: list[EvalTask]) -> None:
    """Several tasks in one message, as the coordinator's dispatcher publishes them."""
    body = EvalTaskBatch(tasks).model_dump_json().encode()
    msg_id = batch_message_id("tasks", [t.task_id for t in tasks])
    await js.publish(
        topology.eval_task, body, headers={"Nats-Msg-Id": msg_id, TASK_BATCH_HEADER: str(len(tasks))}
    )


class ResultReader:
    """Reads ``eval.result`` through the coordinator's durable (the only consumer a work-queue
    stream allows on that subject). ``ack=False`` leaves results in the stream so they can be counted."""

    def __init__(self, js: JetStreamContext, topology: Topology, *, ack: bool = True) -> None:
        self._js = js
        self._topology = topology
        self._ack = ack
        self._sub: JetStreamContext.PullSubscription | None = None

    async def next_results(self, count: int, within_s: float = 15.0) -> list[EvalResult]:
        if self._sub is None:
            self._sub = await self._js.pull_subscribe_bind(
                durable=COORDINATOR_RESULTS_CONSUMER, stream=self._topology.eval_results_stream
            )
        results: list[EvalResult] = []
        loop = asyncio.get_running_loop()
        deadline = loop.time() + within_s
        while len(results) < count:
            remaining = deadline - loop.time()
            if remaining <= 0:
                raise TimeoutError(f"got {len(results)} of {count} results within {within_s}s: {results}")
            try:
                msgs = await self._sub.fetch(count - len(results), timeout=min(remaining, 1.0))
            except TimeoutError:
                continue
            for msg in msgs:
                if msg.headers and RESULT_BATCH_HEADER in msg.headers:  # several scored together
                    results.extend(EvalResultBatch.model_validate_json(msg.data).root)
                else:
                    results.append(EvalResult.model_validate_json(msg.data))
                if self._ack:
                    await msg.ack()
        return results


async def redeclare_workers_consumer(js: JetStreamContext, topology: Topology, *, ack_wait: float) -> None:
    """Replace the fixture's eval-workers durable by one with a short ack_wait (before workers bind)."""
    from shared.messaging.streams import eval_workers_consumer
    from yardstick.api.topology import EVAL_WORKERS_CONSUMER

    await js.delete_consumer(topology.eval_tasks_stream, EVAL_WORKERS_CONSUMER)
    await js.add_consumer(topology.eval_tasks_stream, eval_workers_consumer(ack_wait=ack_wait))
