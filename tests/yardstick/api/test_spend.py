"""Spend as people read it: the offline model's calls read "offline, not billed", never a cost."""

from __future__ import annotations

import pytest

from shared.analysis.reports.spend_markdown import spend_lines
from shared.llm.prices import UsageRow, spend_of
from yardstick.api.spend import NOT_BILLED, PriceTable

pytestmark = pytest.mark.unit

PRICES = PriceTable.model_validate(
    {"models": {"mistral-small": {"input_per_million": 1, "output_per_million": 3}}}
)


def test_the_offline_model_reads_offline_not_billed_everywhere() -> None:
    spend = spend_of([UsageRow("target", "offline:ask", 25, 0, 0)], PRICES)
    assert spend.offline_only and spend.cost is None and spend.complete
    assert spend.cost_text == NOT_BILLED == "offline, not billed"
    markdown = "\n".join(spend_lines([("", spend)]))
    assert "cost offline, not billed" in markdown
    assert "| target | offline:ask | 25 | 0 | 0 | offline, not billed |" in markdown


def test_a_billed_judge_beside_the_offline_target_keeps_its_cost_and_says_the_rest() -> None:
    spend = spend_of(
        [UsageRow("target", "offline:ask", 25, 0, 0), UsageRow("judge", "mistral-small", 25, 1_000_000, 0)],
        PRICES,
    )
    assert not spend.offline_only and spend.cost == 1.0
    assert spend.cost_text == "1.0000 USD (target: offline, not billed)"


def test_other_models_are_unchanged() -> None:
    unpriced = spend_of([UsageRow("target", "gpt-x", 3, 100, 10)], PRICES)
    assert unpriced.cost_text == "no price" and not unpriced.offline_only
    assert spend_of([UsageRow("target", None, 1, 0, 0)], PRICES).cost_text == "0"
