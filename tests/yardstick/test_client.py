"""The SDK against the real stack: a coordinator over HTTP, eval workers, a task worker, NATS and
PostgreSQL. The SDK is synchronous: its calls run in a thread so that the in-process workers keep
the event loop."""

from __future__ import annotations

import asyncio

import pytest

from services.evaluator.worker import EvalWorker
from tests.yardstick.conftest import StartTaskWorker, qa_items
from tests.yardstick.sample_tasks import shout, whisper
from yardstick import ApiError, Client, ExperimentOut
from yardstick.models import ComparisonOut, ExperimentDocument

pytestmark = [pytest.mark.integration, pytest.mark.timeout(90)]

EVALUATORS = ["exact_match", 'string_similarity:{"method": "ratio"}']


async def test_push_run_follow_list_items_report_compare(
    client: Client, eval_workers: list[EvalWorker], start_task_worker: StartTaskWorker
) -> None:
    await start_task_worker(shout, whisper)

    pushed = await asyncio.to_thread(client.push_dataset, "qa", qa_items(), description="capitals")
    again = await asyncio.to_thread(client.push_dataset, "qa", qa_items())
    assert (pushed.version, pushed.item_count, pushed.created_new_version) == (1, 4, True)
    assert (again.version, again.created_new_version) == (1, False)
    [dataset] = await asyncio.to_thread(client.list_datasets)
    assert (dataset.name, dataset.kind, dataset.description) == ("qa", "generic", "capitals")

    accepted = await asyncio.to_thread(
        client.start_experiment, "capitals", dataset="qa", target=shout, evaluators=EVALUATORS
    )
    events = await asyncio.to_thread(lambda: list(client.stream(accepted.id, timeout_s=60)))
    assert events[-1].kind == "completed" and events[-1].done == 4
    baseline = await asyncio.to_thread(client.get_experiment, accepted.id)
    assert baseline.status == "completed" and baseline.aggregates is not None
    assert baseline.aggregates.metrics["exact_match"].mean == 1.0
    assert baseline.target.kind == "python"

    candidate = await asyncio.to_thread(
        lambda: client.run_experiment(
            "capitals", dataset="qa", target=whisper, evaluators=EVALUATORS, timeout_s=60
        )
    )
    assert isinstance(candidate, ExperimentOut) and candidate.status == "completed"
    assert candidate.aggregates is not None and candidate.aggregates.metrics["exact_match"].mean == 0.0

    listed = await asyncio.to_thread(client.list_experiments, name="capitals")
    assert [e.id for e in listed] == [candidate.id, baseline.id]
    frame = listed.to_pandas()
    assert list(frame["mean.exact_match"]) == [0.0, 1.0]

    items = await asyncio.to_thread(client.items, baseline.id)
    assert sorted(i.item_id for i in items) == ["q0", "q1", "q2", "q3"]
    assert {i.item_id: i.output for i in items}["q1"] == {"output": "ROME"}
    table = items.to_pandas()
    assert set(table["exact_match"]) == {1.0} and set(table["status"]) == {"ok"}
    failing = await asyncio.to_thread(lambda: client.items(candidate.id, failing="exact_match"))
    assert len(failing) == 4

    report = await asyncio.to_thread(client.report, baseline.id)
    assert isinstance(report, ExperimentDocument)
    assert "exact_match" in await asyncio.to_thread(client.report_text, baseline.id)

    comparison = await asyncio.to_thread(client.compare, baseline.id, candidate.id)
    assert isinstance(comparison, ComparisonOut)
    [exact] = [m for m in comparison.report.metrics if m.metric == "exact_match"]
    assert exact.comparison.delta == -1.0
    assert "exact_match" in await asyncio.to_thread(client.comparison_text, comparison.id)


async def test_an_api_error_carries_the_status_and_the_message(client: Client) -> None:
    with pytest.raises(ApiError) as caught:
        await asyncio.to_thread(client.get_experiment, "no-such-experiment")
    assert caught.value.status == 404 and "no-such-experiment" in str(caught.value)
