from __future__ import annotations

import pytest

from services.coordinator.ui.views.experiment import bin_labels, model_label, wilson
from yardstick.api.agent_messages import ModelConfig, OfflineBehaviour

pytestmark = pytest.mark.unit


@pytest.mark.parametrize(("passed", "count"), [(0, 5), (5, 5), (3, 10), (1, 1), (990, 1000)])
def test_pass_rate_whiskers_stay_inside_zero_one_and_hold_the_rate(passed: int, count: int) -> None:
    low, high = wilson(passed, count)
    assert 0.0 <= low <= passed / count <= high <= 1.0
    assert high - low > 0


def test_wilson_matches_the_textbook_value() -> None:
    # 3 of 10: the Wilson 95% interval is [0.108, 0.603] (Agresti & Coull 1998, table 1 style check)
    low, high = wilson(3, 10)
    assert (round(low, 3), round(high, 3)) == (0.108, 0.603)
    assert wilson(0, 0) == (0.0, 0.0)


@pytest.mark.parametrize(
    ("model", "label"),
    [
        (ModelConfig(), "offline · defaults"),
        (
            ModelConfig(offline=OfflineBehaviour(simulated_latency_ms=700, simulate_silent_drift=True)),
            "offline · simulated latency ms: 700, simulate silent drift: on",
        ),
        (
            ModelConfig(provider="mistral", name="mistral-small-latest", temperature=0.2),
            "mistral · mistral-small-latest · temperature 0.2",
        ),
    ],
)
def test_the_model_reads_as_words_not_json(model: ModelConfig, label: str) -> None:
    assert model_label(model) == label


def test_latency_bins_narrower_than_a_millisecond_get_decimals() -> None:
    assert bin_labels([1.0, 1.25, 1.5, 1.75]) == ["1.0 ms", "1.2 ms", "1.5 ms"]
    assert bin_labels([0.0, 50.0, 100.0]) == ["0 ms", "50 ms"]
    assert bin_labels([3.0]) == []
