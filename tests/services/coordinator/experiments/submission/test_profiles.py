"""Which evaluators an experiment gets when it names none."""

from __future__ import annotations

import pytest

from services.coordinator.experiments.submission.profiles import default_profile
from shared.online.sampling_config import DEFAULT_EVALUATORS as ONLINE_DEFAULTS

pytestmark = pytest.mark.unit


def names(kind: str, target: str) -> tuple[list[str], list[str]]:
    profile = default_profile(kind, target)
    return [s.name for s in profile.item_specs()], [s.name for s in profile.run_specs()]


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


def test_the_drive_thru_profile_scores_what_the_sampler_scores_live() -> None:
    """The last offline drive-thru run is the drift reference of every online default."""
    items, runs = names("drive_thru", "agent")
    assert set(ONLINE_DEFAULTS) <= set(items)
    assert runs == ["avg_order_correctness", "score_breakdown"]
