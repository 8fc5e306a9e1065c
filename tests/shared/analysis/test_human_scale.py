"""Reading labels and scores on the people's scale, and the calibration report's human-scale estimates
(prediction-powered inference over the queue's population)."""

from __future__ import annotations

import pytest

from shared.analysis.calibration import CalibrationItem, Population, calibrate, evaluator_label
from shared.analysis.human_scale import judge_value, people_scale, people_value
from shared.analysis.stats import prediction_powered_mean
from yardstick.api.metric_spec import MetricSpec
from yardstick.api.pass_criteria import higher_is_better
from yardstick.api.review import RubricField

pytestmark = pytest.mark.unit

PASS_FAIL = RubricField(name="correct", kind="binary")
SCALE = RubricField(name="helpful", kind="ordinal", scale=(1, 5))
SPEC = MetricSpec(direction="higher_is_better", passes=higher_is_better(0.5))


def test_values_on_the_peoples_scale() -> None:
    assert people_scale(PASS_FAIL) == (0.0, 1.0) and people_scale(SCALE) == (1.0, 5.0)
    assert people_scale(RubricField(name="tone", kind="categorical", options=["a", "b"])) is None
    assert people_value(PASS_FAIL, [True, False]) == 0.5 and people_value(SCALE, [2, 5]) == 3.5
    assert people_value(PASS_FAIL, []) is None
    assert judge_value(PASS_FAIL, SPEC, 0.7) == 1.0 and judge_value(PASS_FAIL, SPEC, 0.2) == 0.0
    assert judge_value(SCALE, SPEC, 0.6) == pytest.approx(3.4)  # unrounded; the label rounds it
    assert evaluator_label(SCALE, SPEC, 0.6) == 3
    assert judge_value(SCALE, SPEC, None) is None


def test_the_report_gives_each_evaluators_mean_on_the_peoples_scale_given_the_population() -> None:
    answers = [[True], [True, False], [False], [True]]
    judge = [0.9, 0.8, 0.7, None]  # the last labelled item was not measured: left out
    other = [0.1, 0.9, 0.2, 0.8]
    items = [
        CalibrationItem(position=p + 1, title=f"i{p}", link="", answers=a, scores={"judge": j, "other": o})
        for p, (a, j, o) in enumerate(zip(answers, judge, other, strict=True))
    ]
    population = Population(
        description="the run", unlabelled={"judge": [0.9, 0.1, None, 0.6], "other": [0.3, 0.4]}
    )
    report = calibrate(
        PASS_FAIL, items, "judge", SPEC, against="other", against_spec=SPEC, population=population
    )
    assert list(report.human_scale) == ["judge", "other"] and report.population == "the run"
    assert report.human_scale["judge"] == prediction_powered_mean(
        [1.0, 0.5, 0.0], [1.0, 1.0, 1.0], [1.0, 0.0, 1.0], scale=(0.0, 1.0)
    )
    assert report.human_scale["other"] == prediction_powered_mean(
        [1.0, 0.5, 0.0, 1.0], [0.0, 1.0, 0.0, 1.0], [0.0, 0.0], scale=(0.0, 1.0)
    )
    assert calibrate(PASS_FAIL, items, "judge", SPEC).human_scale == {}
