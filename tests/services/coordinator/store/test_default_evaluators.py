"""Which evaluators an experiment gets when it names none."""

from __future__ import annotations

import pytest

from services.coordinator.store.experiments import _defaults

pytestmark = pytest.mark.unit


def names(kind: str, target: str) -> tuple[list[str], list[str]]:
    items, runs = _defaults(kind, target)
    return [s.name for s in items], [s.name for s in runs]


def test_a_golden_set_is_scored_for_what_the_target_returns() -> None:
    rag_items, rag_runs = names("rag", "answer")
    assert rag_items[:3] == ["citation_recall", "hallucination_rate", "entity_recall"]
    assert {"faithfulness", "citation_precision", "answer_relevancy"} <= set(rag_items)
    assert rag_runs == ["score_breakdown"]
    assert names("rag", "search")[0] == ["retrieval"]  # the same golden set, ranking metrics
    assert names("retrieval", "answer")[0] == rag_items
    assert names("generic", "answer")[0] == rag_items  # no defaults of its own: the target decides


def test_other_kinds_keep_their_defaults() -> None:
    assert names("drive_thru", "agent")[0][0] == "order_correctness"
    assert names("retrieval", "search")[0] == ["retrieval"]
    assert names("generic", "http") == ([], [])
