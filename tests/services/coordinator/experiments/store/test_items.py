"""The items page's ``failing=`` filter follows the one pass rule: direction, None, trials."""

from __future__ import annotations

import pytest
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from services.coordinator.experiments.store.items import items_page
from shared.db.models import ExperimentItem, Score
from tests.evaluator_registry import policy_of
from tests.services.coordinator.experiments.store.experiment_rows import add_experiment
from yardstick.api.evaluation import EvaluatorSpec
from yardstick.api.run_data import ScoredItem

pytestmark = pytest.mark.integration

DRIVE_AND_RAG = [EvaluatorSpec(name="order_correctness"), EvaluatorSpec(name="hallucination_rate")]
DECLARED = policy_of(DRIVE_AND_RAG)  # hallucination_rate: lower is better, as its evaluator declares

# (item_id, trial) -> status and scores; hallucination_rate is lower-is-better (passes at <= 0.5)
ROWS: dict[tuple[str, int], tuple[str, dict[str, float | None]]] = {
    ("a", 0): ("ok", {"order_correctness": 1.0, "hallucination_rate": 0.0}),
    ("a", 1): ("ok", {"order_correctness": 0.2, "hallucination_rate": 0.9}),
    ("b", 0): ("ok", {"order_correctness": None, "hallucination_rate": None}),
    ("c", 0): ("ok", {"order_correctness": 0.5, "hallucination_rate": 0.5, "latency_budget_ms": 9e9}),
    ("d", 0): ("error", {}),
}


async def _experiment(sessions: async_sessionmaker[AsyncSession]) -> str:
    async with sessions() as session:
        experiment = await add_experiment(
            session, "filter", 4, status="completed", total=len(ROWS), done=len(ROWS)
        )
        for position, ((item_id, trial), (status, scores)) in enumerate(ROWS.items()):
            session.add(
                ExperimentItem(
                    experiment_id=experiment.id,
                    item_id=item_id,
                    trial=trial,
                    position=position,
                    status=status,
                    input={},
                    item_metadata={},
                )
            )
            for name, value in scores.items():
                session.add(
                    Score(experiment_id=experiment.id, item_id=item_id, trial=trial, name=name, value=value)
                )
        await session.commit()
        return experiment.id


async def _failing(
    sessions: async_sessionmaker[AsyncSession], experiment_id: str, metric: str
) -> set[tuple[str, int]]:
    async with sessions() as session:
        page = await items_page(session, experiment_id, offset=0, limit=100, failing=metric, policy=DECLARED)
    return {(i.item_id, i.trial) for i in page.items}


async def test_failing_filter_follows_the_pass_rule(
    session_factory: async_sessionmaker[AsyncSession],
) -> None:
    experiment_id = await _experiment(session_factory)
    # higher is better: only trial 1 of item a; None (b) is not measured; the error item has no score
    assert await _failing(session_factory, experiment_id, "order_correctness") == {("a", 1)}
    # lower is better: 0.9 fails, 0.0 and 0.5 pass (the old filter listed every value below 0.5)
    assert await _failing(session_factory, experiment_id, "hallucination_rate") == {("a", 1)}
    # informational metrics never fail an item
    assert await _failing(session_factory, experiment_id, "latency_budget_ms") == set()


async def test_failing_filter_agrees_with_the_item_outcome(
    session_factory: async_sessionmaker[AsyncSession],
) -> None:
    experiment_id = await _experiment(session_factory)
    failing = set()
    for metric in ("order_correctness", "hallucination_rate", "latency_budget_ms"):
        failing |= await _failing(session_factory, experiment_id, metric)
    for (item_id, trial), (status, scores) in ROWS.items():
        item = ScoredItem(item_id=item_id, trial=trial, status=status, scores=scores)  # type: ignore[arg-type]
        if status == "ok":
            assert (DECLARED.outcome(item) == "failed") == ((item_id, trial) in failing)


async def test_status_filter_lists_errors(session_factory: async_sessionmaker[AsyncSession]) -> None:
    experiment_id = await _experiment(session_factory)
    async with session_factory() as session:
        page = await items_page(session, experiment_id, offset=0, limit=100, status="error", policy=DECLARED)
    assert [(i.item_id, i.trial) for i in page.items] == [("d", 0)]
