"""to_pandas() with pandas installed, and the error without it."""

from __future__ import annotations

import importlib
from typing import Any

import pytest

from yardstick import ExperimentItemOut, ItemList, MissingDependency
from yardstick.api.evaluation import Evaluation

pytestmark = pytest.mark.unit


def items() -> ItemList:
    item = ExperimentItemOut(
        item_id="q0",
        trial=0,
        status="ok",
        input={"question": "paris"},
        expected_output={"output": "PARIS"},
        metadata={},
        output={"output": "PARIS"},
        error=None,
        latency_ms=1.5,
        attempts=1,
        scores=[Evaluation(name="exact_match", value=1.0), Evaluation(name="string_similarity", value=0.5)],
    )
    return ItemList([item])


def test_items_become_one_row_each_with_a_column_per_score() -> None:
    pytest.importorskip("pandas")
    frame = items().to_pandas()
    assert list(frame["item_id"]) == ["q0"]
    assert (frame["exact_match"][0], frame["string_similarity"][0]) == (1.0, 0.5)
    assert "scores" not in frame.columns


def test_without_pandas_the_error_says_how_to_get_it(monkeypatch: pytest.MonkeyPatch) -> None:
    real = importlib.import_module

    def no_pandas(name: str, *args: Any) -> Any:
        if name == "pandas":
            raise ImportError("No module named 'pandas'")
        return real(name, *args)

    monkeypatch.setattr(importlib, "import_module", no_pandas)
    with pytest.raises(MissingDependency, match="pip install pandas"):
        items().to_pandas()
