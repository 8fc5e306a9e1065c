"""Tokens and cost end to end (real NATS + Postgres, judge on the bad-day provider): target and
judge tokens add up per experiment and per comparison; a model without a price shows its tokens
and "no price", never a cost."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from services.evaluator.worker import EvalWorker
from tests.llm_provider import BadDayProvider, provider
from tests.services.coordinator.conftest import experiment_body
from tests.services.coordinator.experiments.priced_judge import RUBRIC, judge_politely, use_prices
from tests.services.coordinator.harness import Coordinator, ScriptedAgent, synthetic_items
from yardstick.api.agent_messages import TokenUsage

pytestmark = [pytest.mark.integration, pytest.mark.timeout(120)]
__all__ = ["provider"]

ITEMS = 4
PRICES = """
as_of: 2026-11-26
currency: USD
models:
  bad-day-model: {input_per_million: 2.0, output_per_million: 10.0}
"""


async def _run(coordinator: Coordinator, name: str) -> dict[str, Any]:
    body = experiment_body(name=name, evaluators=["order_correctness", RUBRIC])
    accepted = await coordinator.client.post("/experiments", json=body)
    assert accepted.status_code == 202, accepted.text
    return await coordinator.finished(accepted.json()["id"])


async def test_target_and_judge_tokens_and_cost_per_experiment_and_comparison(
    coordinator: Coordinator,
    workers: list[EvalWorker],
    agent: ScriptedAgent,
    provider: BadDayProvider,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    use_prices(PRICES, tmp_path, monkeypatch)
    judge_politely(provider, (1000, 100))
    agent.usage = TokenUsage(input_tokens=500, output_tokens=50, total_tokens=550, model="agent-model")
    await coordinator.push("syn", synthetic_items(ITEMS))

    done = await _run(coordinator, "priced")
    spend = done["aggregates"]["spend"]
    by_role = {m["role"]: m for m in spend["by_model"]}
    assert by_role["judge"] == {
        "role": "judge",
        "model": "bad-day-model",
        "calls": ITEMS,
        "input_tokens": 1000 * ITEMS,
        "output_tokens": 100 * ITEMS,
        "cost": pytest.approx((2.0 * 1000 + 10.0 * 100) * ITEMS / 1e6),
    }
    assert by_role["target"]["model"] == "agent-model" and by_role["target"]["cost"] is None
    assert by_role["target"]["input_tokens"] == 500 * ITEMS
    assert spend["input_tokens"] == 1500 * ITEMS and spend["output_tokens"] == 150 * ITEMS
    assert spend["cost"] == pytest.approx(0.003 * ITEMS), "the priced part only"
    assert spend["complete"] is False and spend["unpriced_models"] == ["agent-model"]

    report = await coordinator.client.get(f"/experiments/{done['id']}/report", params={"format": "md"})
    assert report.status_code == 200, report.text
    assert (
        "## Spend" in report.text and "| judge | bad-day-model | 4 | 4000 | 400 | 0.0120 USD |" in report.text
    )
    assert "| target | agent-model | 4 | 2000 | 200 | no price |" in report.text

    items = (await coordinator.client.get(f"/experiments/{done['id']}/items")).json()["items"]
    assert len(items) == ITEMS
    for item in items:
        assert item["spend"]["input_tokens"] == 1500 and item["spend"]["output_tokens"] == 150
        assert item["spend"]["cost"] == pytest.approx(0.003) and item["spend"]["unpriced_models"] == [
            "agent-model"
        ]
    assert sum(i["spend"]["cost"] for i in items) == pytest.approx(spend["cost"]), "items add up to the run"

    agent.usage = None
    other = await _run(coordinator, "unpriced-target")
    comparison = await coordinator.client.post(
        "/comparisons", json={"baseline_id": done["id"], "candidate_id": other["id"]}
    )
    assert comparison.status_code in (200, 201), comparison.text
    body = comparison.json()["report"]
    assert body["baseline_spend"]["cost"] == pytest.approx(0.012)
    assert body["candidate_spend"]["cost"] == pytest.approx(0.012)
    assert body["candidate_spend"]["complete"] is True
    assert [m["role"] for m in body["candidate_spend"]["by_model"]] == ["judge"]


async def test_without_a_price_table_every_cost_is_no_price(
    coordinator: Coordinator,
    workers: list[EvalWorker],
    agent: ScriptedAgent,
    provider: BadDayProvider,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("LLM_PRICES", raising=False)
    judge_politely(provider, (1000, 100))
    await coordinator.push("syn", synthetic_items(ITEMS))
    spend = (await _run(coordinator, "no-prices"))["aggregates"]["spend"]
    assert spend["cost"] is None and spend["input_tokens"] == 1000 * ITEMS
    assert spend["unpriced_models"] == ["bad-day-model"]
