"""The calibration page's people's-scale rows: three estimates with their intervals placed on the
scale's range (percent of its width), a missing estimate shown as a dash."""

from __future__ import annotations

import pytest

from services.coordinator.ui.views.calibration import human_scale_views
from shared.analysis.stats import prediction_powered_mean
from yardstick.api.calibration import CalibrationReport

pytestmark = pytest.mark.unit


def test_each_estimate_is_a_row_with_its_interval_on_the_scale() -> None:
    result = prediction_powered_mean([2, 4, 5, 3], [3, 4, 5, 4], [4.0, 3.0, 5.0, 4.5], scale=(1.0, 5.0))
    report = CalibrationReport(
        field="helpful", kind="ordinal", evaluator="judge", items=4, human_scale={"judge": result}
    )
    (view,) = human_scale_views(report)
    assert view.evaluator == "judge" and view.scale == "[1, 5]" and view.reason == result.reason
    ppi, judge, labels = view.rows
    assert result.estimate is not None and result.estimate.ci_low is not None
    assert (
        ppi.value == f"{result.estimate.value:.3f}"
        and ppi.method == "95% CI, prediction-powered, normal (CLT)"
    )
    assert ppi.dot == pytest.approx(100 * (result.estimate.value - 1) / 4, abs=0.01)
    assert ppi.left == pytest.approx(100 * (result.estimate.ci_low - 1) / 4, abs=0.01)
    assert ppi.left >= 0 and ppi.left + ppi.width <= 100.01
    assert judge.items == 8 and labels.items == 4 and labels.method == "95% CI, Student t"


def test_a_missing_estimate_is_a_dash() -> None:
    result = prediction_powered_mean([1.0], [1.0], [0.0, 1.0], scale=(0.0, 1.0))
    report = CalibrationReport(
        field="ok", kind="binary", evaluator="judge", items=1, human_scale={"judge": result}
    )
    ppi = human_scale_views(report)[0].rows[0]
    assert (ppi.value, ppi.interval, ppi.items, ppi.dot) == ("—", "", None, None)
