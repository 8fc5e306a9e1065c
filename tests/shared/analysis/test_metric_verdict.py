"""Every verdict comes with its reason in words, and gate=ci asks the whole interval to pass."""

from __future__ import annotations

import numpy as np
import pytest

from shared.analysis.metric_specs import LATENCY_SPEC
from shared.analysis.metric_verdict import verdict
from shared.analysis.stats import compare_paired
from yardstick.api.comparison_config import ComparisonConfig
from yardstick.api.metric_spec import MetricSpec

pytestmark = pytest.mark.unit

DROP = MetricSpec.higher()  # a drop of more than 0.05 regresses


def _drop(mean_drop: float, spread: float, n: int = 60, seed: int = 0) -> object:
    rng = np.random.default_rng(seed)
    baseline = rng.uniform(0.6, 0.9, n)
    candidate = baseline - mean_drop + rng.normal(0, spread, n)
    return compare_paired(baseline, candidate, resamples=2000)


def test_a_clear_regression_says_threshold_and_test() -> None:
    comp = _drop(0.2, 0.02)
    status, reason = verdict(comp, 0.001, DROP, ComparisonConfig())  # type: ignore[arg-type]
    assert status == "regression"
    assert "beyond the -0.05 threshold" in reason and "p(Holm) 0.001 < alpha 0.05" in reason


def test_significant_but_within_the_threshold() -> None:
    comp = _drop(0.02, 0.005)
    status, reason = verdict(comp, 0.001, DROP, ComparisonConfig())  # type: ignore[arg-type]
    assert status == "no_significant_change"
    assert (
        reason.startswith("significant (p(Holm) 0.001 < alpha 0.05") and "does not pass the -0.05" in reason
    )


def test_not_significant_although_the_interval_excludes_zero() -> None:
    comp = _drop(0.1, 0.05)
    status, reason = verdict(comp, 0.23, DROP, ComparisonConfig())  # type: ignore[arg-type]
    assert status == "no_significant_change"
    assert "not significant: p(Holm) 0.23 >= alpha 0.05" in reason
    assert "excludes 0 but is not adjusted for the number of metrics" in reason


def test_latency_within_its_threshold_says_so() -> None:
    rng = np.random.default_rng(2)
    base = rng.normal(140, 20, 40)
    comp = compare_paired(base, base - 9 + rng.normal(0, 3, 40), resamples=2000)
    spec = LATENCY_SPEC.with_signed_threshold(100.0)  # latency gates only under a threshold one sets
    status, reason = verdict(comp, 0.035, spec, ComparisonConfig())
    assert status == "no_significant_change" and "does not pass the +100 threshold" in reason


def test_gate_ci_needs_the_whole_interval_beyond_the_threshold() -> None:
    """A drop a little past the threshold: the point estimate passes it, the interval does not."""
    comp = _drop(0.06, 0.1, n=80)
    assert comp.delta_ci_high is not None and comp.delta_ci_high > -0.05 > comp.delta  # type: ignore[attr-defined]
    point, _ = verdict(comp, 0.001, DROP, ComparisonConfig(gate="point"))  # type: ignore[arg-type]
    ci, reason = verdict(comp, 0.001, DROP, ComparisonConfig(gate="ci"))  # type: ignore[arg-type]
    assert (point, ci) == ("regression", "no_significant_change")
    assert "its interval" in reason


def test_too_few_pairs() -> None:
    comp = compare_paired([0.5], [0.4], resamples=100)
    assert verdict(comp, None, DROP, ComparisonConfig()) == (
        "insufficient_data",
        "1 complete pair(s): too few to test",
    )
