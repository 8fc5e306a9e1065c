"""The CLI's run summary says what the run cost: tokens always, "no price" for unpriced models,
"offline model, not billed" for the offline model, and the judge cache's hits beside the output
cache's."""

from __future__ import annotations

from typing import Any

import pytest
from rich.console import Console

from services.cli.progress_view import summary_table
from shared.llm.prices import UsageRow, spend_of
from yardstick.api.spend import PriceTable

pytestmark = pytest.mark.unit


def _experiment(spend: dict[str, Any] | None) -> dict[str, Any]:
    return {
        "id": "e1",
        "name": "run",
        "status": "completed",
        "progress": {"total": 4, "errors": 0, "cache_hits": 1, "judge_cache_hits": 3},
        "aggregates": {"metrics": {}, "run_scores": [], "spend": spend},
    }


def _render(experiment: dict[str, Any]) -> str:
    console = Console(width=200, record=True)
    console.print(summary_table(experiment))
    return console.export_text()


def test_the_summary_shows_cost_tokens_and_judge_cache_hits() -> None:
    spend = {"input_tokens": 4000, "output_tokens": 400, "cost": 0.012, "currency": "USD"}
    text = _render(_experiment(spend))
    assert "LLM tokens 4000 in / 400 out · cost 0.0120 USD" in text
    assert "judge cache hits 3" in text


def test_an_unpriced_run_says_no_price() -> None:
    spend = {
        "input_tokens": 10,
        "output_tokens": 5,
        "cost": None,
        "complete": False,
        "unpriced_models": ["m"],
    }
    assert "cost no price" in _render(_experiment(spend))
    assert "LLM tokens" not in _render(_experiment(None))


def test_a_run_of_the_offline_model_says_not_billed_instead_of_tokens_and_cost() -> None:
    spend = spend_of([UsageRow("target", "offline:ask", 4, 0, 0)], PriceTable())
    text = _render(_experiment(spend.model_dump(mode="json")))
    assert "LLM offline model, not billed" in text and "LLM tokens" not in text
