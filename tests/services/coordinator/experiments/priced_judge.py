"""What the spend and budget tests share: an ``llm_rubric`` judge on the bad-day provider whose every
judgement costs set tokens, and a price table for the test (``LLM_PRICES``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.llm_provider import BadDayProvider, Reply

RUBRIC = {"name": "llm_rubric", "args": {"criteria": "Confirms the order politely."}}


def judge_politely(provider: BadDayProvider, usage: tuple[int, int]) -> None:
    """Every judgement: score 4 of 5, for ``usage`` (input, output) tokens."""
    provider.fallback = Reply.json({"reason": "polite", "score": 4}, usage=usage)


def use_prices(table: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``LLM_PRICES`` pointing at a file holding ``table`` (YAML) for this test."""
    prices = tmp_path / "prices.yaml"
    prices.write_text(table)
    monkeypatch.setenv("LLM_PRICES", str(prices))
