"""A budget stops a run (real NATS + Postgres, judge on the bad-day provider): once the recorded
spend reaches ``max_cost`` nothing more is dispatched, the run ends ``budget_exhausted`` with what
it finished scored and aggregated, and the items it never ran say why."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from services.evaluator.worker import EvalWorker
from shared.db.models import ExperimentItem
from tests.llm_provider import BadDayProvider, provider
from tests.services.coordinator.conftest import experiment_body
from tests.services.coordinator.experiments.priced_judge import RUBRIC, judge_politely, use_prices
from tests.services.coordinator.harness import Coordinator, ScriptedAgent, synthetic_items, ui_page

pytestmark = [pytest.mark.integration, pytest.mark.timeout(120)]
__all__ = ["provider"]

ITEMS = 12
PRICES = "currency: USD\nmodels:\n  bad-day-model: {input_per_million: 1000.0, output_per_million: 0.0}\n"


async def _items(
    sessions: async_sessionmaker[AsyncSession], experiment_id: str
) -> list[tuple[str, str | None]]:
    async with sessions() as session:
        rows = await session.execute(
            select(ExperimentItem.status, ExperimentItem.error).where(
                ExperimentItem.experiment_id == experiment_id
            )
        )
        return [(status, error) for status, error in rows.all()]


async def test_a_budget_stops_dispatching_and_the_run_ends_budget_exhausted(
    coordinator: Coordinator,
    workers: list[EvalWorker],
    agent: ScriptedAgent,
    provider: BadDayProvider,
    session_factory: async_sessionmaker[AsyncSession],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    use_prices(PRICES, tmp_path, monkeypatch)
    judge_politely(provider, (1000, 10))  # 1.0 USD a judgement
    agent.hold_s = 0.05  # an item takes longer than the coordinator's look at the spend
    await coordinator.push("syn", synthetic_items(ITEMS))
    body: dict[str, Any] = experiment_body(
        name="budgeted", evaluators=["order_correctness", RUBRIC], concurrency=1, max_cost=3.0
    )
    accepted = await coordinator.client.post("/experiments", json=body)
    assert accepted.status_code == 202, accepted.text
    done = await coordinator.finished(accepted.json()["id"])

    assert done["status"] == "budget_exhausted", done
    assert done["max_cost"] == 3.0
    assert "budget exhausted" in (done["error"] or "")
    items = await _items(session_factory, done["id"])
    ran = [s for s, _ in items if s == "ok"]
    not_run = [e for s, e in items if s == "error"]
    assert 3 <= len(ran) <= 8, f"{len(ran)} items ran: the budget of 3 judgements did not stop it"
    assert len(ran) + len(not_run) == ITEMS and not_run
    assert all((e or "").startswith("not run: budget exhausted") for e in not_run)
    assert len(provider.seen) == len(ran), "an item that was not run asked the judge"
    aggregates = done["aggregates"]
    assert aggregates["metrics"]["llm_rubric"]["count"] == len(ran)
    assert (
        aggregates["spend"]["cost"] == pytest.approx(float(len(ran))) and aggregates["spend"]["cost"] >= 3.0
    )
    assert done["progress"]["errors"] == len(not_run)

    report = await coordinator.client.get(f"/experiments/{done['id']}/report", params={"format": "md"})
    assert report.status_code == 200, report.text
    assert "## Spend" in report.text
    page = await ui_page(coordinator, f"/ui/experiments/{done['id']}")
    assert "data-budget-exhausted" in page and "Budget exhausted" in page and "data-spend" in page


async def test_a_budget_not_reached_completes(
    coordinator: Coordinator,
    workers: list[EvalWorker],
    agent: ScriptedAgent,
    provider: BadDayProvider,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    use_prices(PRICES, tmp_path, monkeypatch)
    judge_politely(provider, (1000, 10))
    await coordinator.push("syn", synthetic_items(4))
    body = experiment_body(name="roomy", evaluators=[RUBRIC], budget=100.0)  # `budget` is max_cost's alias
    done = await coordinator.finished((await coordinator.client.post("/experiments", json=body)).json()["id"])
    assert done["status"] == "completed" and done["max_cost"] == 100.0
    assert done["aggregates"]["spend"]["cost"] == pytest.approx(4.0)


def test_max_cost_must_be_positive_and_finite() -> None:
    from pydantic import ValidationError

    from yardstick.api.experiment_config import ExperimentConfig

    good = ExperimentConfig.model_validate({"target": {"kind": "agent"}, "evaluators": [], "max_cost": 1.5})
    assert good.max_cost == 1.5
    assert (
        ExperimentConfig.model_validate({"target": {"kind": "agent"}, "evaluators": [], "budget": 2}).max_cost
        == 2
    )
    for bad in (0, -1, float("inf"), float("nan")):
        with pytest.raises(ValidationError):
            ExperimentConfig.model_validate({"target": {"kind": "agent"}, "evaluators": [], "max_cost": bad})
