"""An in-process EvalWorker against the real nats-server: results, retries, leases, bad input."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from nats.aio.client import Client as NatsClient

from services.evaluator.settings import WorkerSettings
from services.evaluator.worker import EvalWorker, WorkerStartError
from shared.evaluators import register
from shared.evaluators.registry import marked
from tests.evaluator_registry import add_for_test
from tests.services.evaluator.conftest import StartWorker
from tests.services.evaluator.fakes import (
    FakeAgent,
    ResultReader,
    agent_task,
    assert_all_settled,
    hang_on_request,
    ok_response,
    publish_batch,
    publish_task,
    redeclare_workers_consumer,
)
from yardstick.api.agent_messages import AgentInvokeRequest, AgentInvokeResponse
from yardstick.api.eval_messages import EvalTask, SearchTarget
from yardstick.api.evaluation import Evaluation, EvaluatorSpec
from yardstick.api.nats_interest import subscriptions_registered
from yardstick.api.search_messages import SearchHit, SearchResponse
from yardstick.api.topology import EVAL_WORKERS_CONSUMER, Topology

pytestmark = [pytest.mark.integration, pytest.mark.timeout(60)]


@register("test_len")
def response_length(
    *, input: Any, output: Any, expected_output: Any, metadata: Any, x: int = 0, **kwargs: Any
) -> Evaluation:
    """Length of the agent's response text (test evaluator)."""
    return Evaluation(name="test_len", value=float(len(output["response"])), comment=f"args={{'x': {x}}}")


@pytest.fixture(autouse=True)
def _test_len_in_the_registry(monkeypatch: pytest.MonkeyPatch) -> None:
    """The in-process workers score with the process registry: ``test_len`` is in it for each test."""
    entry = marked(response_length)
    assert entry is not None
    add_for_test(monkeypatch, entry)


async def test_a_task_end_to_end_gives_one_scored_result(
    nats_client: NatsClient, topology: Topology, start_worker: StartWorker
) -> None:
    js = nats_client.jetstream()
    agent = await FakeAgent(nats_client, topology.agent_invoke).start()
    worker = await start_worker()
    task = agent_task("item-1", "one hash brown", evaluators=[EvaluatorSpec(name="test_len", args={"x": 1})])
    await publish_task(js, topology, task)

    [result] = await ResultReader(js, topology).next_results(1)

    assert (result.experiment_id, result.item_id, result.trial, result.status) == ("exp-1", "item-1", 0, "ok")
    assert result.output is not None and result.output["response"] == "Added: one hash brown"
    assert [(s.name, s.value, s.comment) for s in result.scores] == [
        ("test_len", float(len("Added: one hash brown")), "args={'x': 1}")
    ]
    assert result.usage is not None and result.usage.total_tokens == 15
    assert result.attempts == 1 and result.worker_id == worker.settings.worker_id
    assert result.latency_ms is not None and result.total_ms is not None
    assert 0 <= result.latency_ms <= result.total_ms
    assert agent.seen[0].headers["Yardstick-Task-Id"] == task.task_id
    await worker.stop()  # returns once every fetched task is settled
    await assert_all_settled(js, topology)


@pytest.mark.parametrize("batched", [False, True], ids=["one-task-a-message", "one-batch"])
async def test_always_timing_out_target_becomes_an_error_after_max_deliver_while_others_are_served(
    nats_client: NatsClient, topology: Topology, start_worker: StartWorker, batched: bool
) -> None:
    """In a batch, the failing task is retried on its own with its attempts counted across both."""
    js = nats_client.jetstream()
    agent = await FakeAgent(nats_client, topology.agent_invoke, answer=hang_on_request).start()
    await start_worker(eval_max_deliver=3, eval_backoff_base_s=0.05, eval_concurrency=2)
    tasks = [agent_task("stuck", "hang", timeout_s=0.3)] + [
        agent_task(f"fine-{i}", "a coffee") for i in range(3)
    ]
    if batched:
        await publish_batch(js, topology, tasks)
    for task in [] if batched else tasks:
        await publish_task(js, topology, task)

    results = {r.item_id: r for r in await ResultReader(js, topology).next_results(4)}

    assert {(results[f"fine-{i}"].status, results[f"fine-{i}"].attempts) for i in range(3)} == {("ok", 1)}
    stuck = results["stuck"]
    assert stuck.status == "error" and stuck.attempts == 3 and stuck.output is None
    assert stuck.error is not None
    assert stuck.error.startswith("TargetTimeout:") and "gave up after 3 attempts" in stuck.error
    utterances = [s.request.customer_utterance for s in agent.seen]
    assert utterances.count("hang") == 3 and utterances.count("a coffee") == 3


async def test_agent_error_answer_is_an_error_result_and_not_retried(
    nats_client: NatsClient, topology: Topology, start_worker: StartWorker
) -> None:
    async def refuse(req: AgentInvokeRequest) -> AgentInvokeResponse | None:
        return AgentInvokeResponse(ok=False, error="model quota exhausted")

    js = nats_client.jetstream()
    agent = await FakeAgent(nats_client, topology.agent_invoke, answer=refuse).start()
    await start_worker()
    await publish_task(js, topology, agent_task("refused", evaluators=[EvaluatorSpec(name="test_len")]))

    [result] = await ResultReader(js, topology).next_results(1)
    assert result.status == "error" and result.attempts == 1 and result.scores == []
    assert result.error == "TargetRejected: agent answered with an error: model quota exhausted"
    assert len(agent.seen) == 1


async def test_long_item_keeps_its_lease_and_is_not_redelivered(
    nats_client: NatsClient, topology: Topology, start_worker: StartWorker
) -> None:
    js = nats_client.jetstream()
    await redeclare_workers_consumer(js, topology, ack_wait=1.0)

    async def slow(req: AgentInvokeRequest) -> AgentInvokeResponse | None:
        await asyncio.sleep(2.5)  # the slow system under test, 2.5 x ack_wait
        return ok_response(req)

    agent = await FakeAgent(nats_client, topology.agent_invoke, answer=slow).start()
    await start_worker(eval_concurrency=4)
    await publish_task(js, topology, agent_task("slow", timeout_s=10))

    [result] = await ResultReader(js, topology).next_results(1)
    assert result.status == "ok" and result.attempts == 1
    assert len(agent.seen) == 1, "the task was redelivered while it was still running"


async def test_malformed_task_is_terminated_not_retried(
    nats_client: NatsClient, topology: Topology, start_worker: StartWorker
) -> None:
    js = nats_client.jetstream()
    await FakeAgent(nats_client, topology.agent_invoke).start()
    worker: EvalWorker = await start_worker(eval_concurrency=1)
    await js.publish(
        topology.eval_task, b'{"experiment_id": "e", "no": "target"}', headers={"Nats-Msg-Id": "bad"}
    )
    await js.publish(topology.eval_task, b"not json at all", headers={"Nats-Msg-Id": "worse"})
    await publish_task(js, topology, agent_task("after-bad"))

    [result] = await ResultReader(js, topology).next_results(1)
    assert result.item_id == "after-bad" and result.status == "ok"
    await worker.stop()  # returns once every fetched task is settled
    assert worker.status().outcomes == {"terminated": 2, "ok": 1}
    info = await js.consumer_info(topology.eval_tasks_stream, EVAL_WORKERS_CONSUMER)
    assert info.num_redelivered == 0 and info.num_ack_pending == 0 and info.num_pending == 0


async def test_search_target_result_carries_the_hits(
    nats_client: NatsClient, topology: Topology, start_worker: StartWorker
) -> None:
    js = nats_client.jetstream()

    async def answer(msg: Any) -> None:
        hits = [SearchHit(id="doc-3", score=2.5, rank=1, title="Reset your password")]
        await msg.respond(
            SearchResponse(results=hits, latency_ms=4.0, backend="corpus").model_dump_json().encode()
        )

    await nats_client.subscribe(topology.search_query, cb=answer)
    await subscriptions_registered(nats_client)
    await start_worker()
    task = EvalTask(experiment_id="e", item_id="q1", input={"query": "reset password"}, target=SearchTarget())
    await publish_task(js, topology, task)

    [result] = await ResultReader(js, topology).next_results(1)
    assert result.status == "ok"
    assert result.output == {
        "results": [
            {
                "id": "doc-3",
                "score": 2.5,
                "rank": 1,
                "title": "Reset your password",
                "snippet": "",
                "source_type": "",
            }
        ],
        "latency_ms": 4.0,
        "backend": "corpus",
    }


async def test_start_fails_clearly_when_the_consumer_is_not_declared(nats_url: str) -> None:
    undeclared = Topology(namespace="never-declared")
    worker = EvalWorker(WorkerSettings(nats_url=nats_url, nats_namespace=undeclared.namespace))
    with pytest.raises(
        WorkerStartError, match=r"'eval-workers' on stream NEVER_DECLARED_EVAL_TASKS is not declared"
    ):
        await worker.start()


async def test_the_experiments_credit_is_back_before_the_result_is_published(
    nats_client: NatsClient, topology: Topology, start_worker: StartWorker
) -> None:
    """C bounds the target calls and the scoring: the next task may start while a finished one's
    result and acknowledgement are still on their way to NATS."""
    js = nats_client.jetstream()
    await FakeAgent(nats_client, topology.agent_invoke).start()
    worker = await start_worker()
    processor = worker._processor
    assert processor is not None
    publish = processor._publisher.publish
    running_at_publish: list[int] = []

    async def publish_and_look(result: Any) -> Any:
        running_at_publish.append(worker._ledger.running_of(result.experiment_id))
        return await publish(result)

    processor._publisher.publish = publish_and_look  # type: ignore[method-assign]
    await publish_task(js, topology, agent_task("item-1", "one hash brown"))
    [result] = await ResultReader(js, topology).next_results(1)
    assert result.status == "ok"
    assert running_at_publish == [0]  # it held the credit while calling and scoring (see ledger tests)
    await worker.stop()
