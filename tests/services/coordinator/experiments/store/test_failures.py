"""What went wrong: errors grouped by message, failing scores worst first, by the one pass rule."""

from __future__ import annotations

import pytest
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from services.coordinator.experiments.store.failures import experiment_failures
from tests.evaluator_registry import policy_of
from tests.services.coordinator.experiments.store.test_items import _experiment
from yardstick.api.evaluation import EvaluatorSpec
from yardstick.api.pass_criteria import PassCriterion

pytestmark = pytest.mark.integration

DRIVE_AND_RAG = [EvaluatorSpec(name="order_correctness"), EvaluatorSpec(name="hallucination_rate")]
DECLARED = policy_of(DRIVE_AND_RAG)  # hallucination_rate: lower is better, as its evaluator declares


async def test_failures_follow_the_pass_rule(session_factory: async_sessionmaker[AsyncSession]) -> None:
    experiment_id = await _experiment(session_factory)
    async with session_factory() as session:
        failures = await experiment_failures(session, experiment_id, DECLARED, limit=10)
    assert [(g.message, g.count, g.example_item_ids) for g in failures.errors] == [("(no message)", 1, ["d"])]
    # a#1 fails both metrics; None (b) is not measured; c sits exactly on both thresholds; ms metrics
    # are informational
    assert [(f.item_id, f.trial, f.metric, f.criterion) for f in failures.failing] == [
        ("a", 1, "hallucination_rate", "<= 0.5"),
        ("a", 1, "order_correctness", ">= 0.5"),
    ]


async def test_failing_scores_worst_first_and_limited(
    session_factory: async_sessionmaker[AsyncSession],
) -> None:
    experiment_id = await _experiment(session_factory)
    strict = policy_of(
        DRIVE_AND_RAG, pass_criteria={"order_correctness": PassCriterion.model_validate(">=1")}
    )
    async with session_factory() as session:
        failures = await experiment_failures(session, experiment_id, strict, limit=3)
    assert [(f.item_id, f.metric, f.value) for f in failures.failing] == [
        ("a", "hallucination_rate", 0.9),
        ("a", "order_correctness", 0.2),
        ("c", "order_correctness", 0.5),
    ]
