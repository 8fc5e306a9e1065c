from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta

import pytest

from services.sampler.sampling import MinuteCap, decide, in_sample, matches_filters, sample_point
from shared.online.sampling_config import SamplingFilters, SamplingSettings
from tests.services.sampler.turns import make_turn

pytestmark = pytest.mark.unit

NOW = datetime(2026, 11, 22, 12, 0, 30, tzinfo=UTC)


@pytest.mark.parametrize("rate", [0.05, 0.2, 0.5])
def test_observed_rate_is_within_two_points_over_10000_conversations(rate: float) -> None:
    ids = [f"conv-{uuid.UUID(int=i)}" for i in range(10_000)]
    first = [in_sample(cid, rate) for cid in ids]
    second = [in_sample(cid, rate) for cid in ids]
    assert first == second
    assert abs(sum(first) / len(ids) - rate) <= 0.02


def test_sample_point_is_in_unit_interval_and_stable() -> None:
    points = [sample_point(str(i)) for i in range(1000)]
    assert all(0.0 <= p < 1.0 for p in points)
    assert sample_point("abc") == sample_point("abc")


def test_rate_edges() -> None:
    assert not in_sample("any", 0.0)
    assert in_sample("any", 1.0)


def test_a_conversation_is_sampled_whole() -> None:
    config = SamplingSettings(rate=0.5)
    for i in range(50):
        cid = f"c{i}"
        decisions = {decide(make_turn(cid, t), config, MinuteCap(), NOW) for t in range(4)}
        assert len(decisions) == 1


def test_filters() -> None:
    turn = make_turn("c", model="m1", prompt_version="v2", finalized=True, metadata={"store": "17"})
    assert matches_filters(turn, SamplingFilters())
    assert matches_filters(turn, SamplingFilters(model="m1", prompt_version="v2", finalized=True))
    assert matches_filters(turn, SamplingFilters(metadata={"store": "17"}))
    assert not matches_filters(turn, SamplingFilters(model="m2"))
    assert not matches_filters(turn, SamplingFilters(prompt_version="v1"))
    assert not matches_filters(turn, SamplingFilters(finalized=False))
    assert not matches_filters(turn, SamplingFilters(metadata={"store": "18"}))
    assert decide(turn, SamplingSettings(rate=1.0, filters=SamplingFilters(model="x")), MinuteCap(), NOW) == (
        "filtered"
    )


def test_cap_per_minute_skips_and_counts_then_resets() -> None:
    config = SamplingSettings(rate=1.0, cap_per_minute=3)
    cap = MinuteCap()
    got = [decide(make_turn(f"c{i}"), config, cap, NOW) for i in range(5)]
    assert got == ["sampled"] * 3 + ["capped"] * 2
    assert cap.skipped == 2
    assert decide(make_turn("next"), config, cap, NOW + timedelta(minutes=1)) == "sampled"
