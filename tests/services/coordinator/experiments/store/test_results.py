"""The batched result writer (one statement per batch) keeps exactly-once: a redelivered batch
writes nothing twice, and a batch mixing old and new results moves only the new ones."""

from __future__ import annotations

import pytest
from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from services.coordinator.experiments.store.results import store_results
from shared.db.models import Experiment, ExperimentItem, Score
from shared.evaluators.judge_cache import HIT
from tests.services.coordinator.experiments.store.experiment_rows import running_experiment
from yardstick.api.eval_messages import EvalResult
from yardstick.api.evaluation import Evaluation
from yardstick.api.item_failure import ItemFailure

pytestmark = pytest.mark.integration

ITEMS = ["a", "b", "c"]


def _result(
    experiment_id: str, item_id: str, *, ok: bool = True, concurrency: int | None = None
) -> EvalResult:
    scores = [
        Evaluation(name="order_correctness", value=1.0),
        Evaluation(name="judge", value=0.5, metadata={"judge_cache": HIT}),
    ]
    return EvalResult(
        experiment_id=experiment_id,
        item_id=item_id,
        status="ok" if ok else "error",
        output={"response": item_id} if ok else None,
        scores=scores if ok else [],
        error=None if ok else "TimeoutError: slow",
        throttled=1,
        target_concurrency=concurrency,
        worker_id="w1",
    )


async def _store(sessions: async_sessionmaker[AsyncSession], results: list[EvalResult]) -> list[str]:
    async with sessions() as session:
        progressed = await store_results(session, results)
        await session.commit()
    return [p.experiment_id for p in progressed]


async def _state(sessions: async_sessionmaker[AsyncSession], experiment_id: str) -> tuple[object, ...]:
    async with sessions() as session:
        e = await session.get(Experiment, experiment_id)
        assert e is not None
        scores = await session.scalar(
            select(func.count()).select_from(Score).where(Score.experiment_id == experiment_id)
        )
        return (e.done, e.errors, e.judge_cache_hits, e.throttled, e.target_concurrency, scores)


async def test_a_redelivered_batch_writes_nothing_twice(
    session_factory: async_sessionmaker[AsyncSession],
) -> None:
    experiment_id = await running_experiment(session_factory, "writer", ITEMS)
    batch = [_result(experiment_id, "a", concurrency=7), _result(experiment_id, "b", ok=False)]
    assert await _store(session_factory, batch) == [experiment_id]
    # done, errors, judge cache hits (1 per ok item), throttled (1 per item), concurrency, scores
    assert await _state(session_factory, experiment_id) == (2, 1, 1, 2, 7, 2)

    assert await _store(session_factory, batch) == []  # redelivered: no item moves, no counter
    assert await _state(session_factory, experiment_id) == (2, 1, 1, 2, 7, 2)

    mixed = [_result(experiment_id, "a", concurrency=9), _result(experiment_id, "c")]
    assert await _store(session_factory, mixed) == [experiment_id]
    # only c moved; the latest reported concurrency is kept even from a duplicate result
    assert await _state(session_factory, experiment_id) == (3, 1, 2, 3, 9, 4)
    async with session_factory() as session:
        a = (
            await session.execute(
                select(ExperimentItem).where(
                    ExperimentItem.experiment_id == experiment_id, ExperimentItem.item_id == "a"
                )
            )
        ).scalar_one()
        assert (a.status, a.output, a.worker_id) == ("ok", {"response": "a"}, "w1")


async def test_an_empty_batch_writes_nothing(session_factory: async_sessionmaker[AsyncSession]) -> None:
    experiment_id = await running_experiment(session_factory, "writer", ITEMS)
    assert await _store(session_factory, []) == []
    assert await _state(session_factory, experiment_id) == (0, 0, 0, 0, None, 0)


async def test_failures_are_stored_typed_and_a_long_metric_name_is_cut_to_its_column(
    session_factory: async_sessionmaker[AsyncSession],
) -> None:
    experiment_id = await running_experiment(session_factory, "writer", ITEMS)
    try:
        raise ValueError("no verdict")
    except ValueError as exc:
        story = ItemFailure.of("evaluator", exc, evaluator="judge", evaluator_version="3")
    long_name = "m" * 150  # before: the whole batch failed on the 100-character column
    ok = _result(experiment_id, "a").model_copy(
        update={
            "scores": [
                Evaluation(name="judge", value=None, failure=story),
                Evaluation(name=long_name, value=float("nan")),
            ]
        }
    )
    refused = _result(experiment_id, "b", ok=False)
    await _store(session_factory, [ok, refused])
    async with session_factory() as session:
        rows = {
            s.name: s
            for s in (await session.scalars(select(Score).where(Score.experiment_id == experiment_id)))
        }
        item = await session.scalar(
            select(ExperimentItem).where(
                ExperimentItem.experiment_id == experiment_id, ExperimentItem.item_id == "b"
            )
        )
        bare = await session.scalar(
            select(func.count()).where(Score.experiment_id == experiment_id, Score.failure.is_(None))
        )
    assert rows["judge"].failure == story and rows["judge"].error == "ValueError: no verdict"
    assert rows["m" * 100].value is None, "NaN is no measurement"
    assert bare == 1, "a score without a failure stores SQL NULL, not JSON null"
    assert item is not None and item.failure is not None
    assert (item.failure.source, item.failure.type, item.failure.message) == (
        "target",
        "TimeoutError",
        "slow",
    )
    assert item.error == "TimeoutError: slow"
