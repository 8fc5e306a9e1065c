"""An evaluator's mean read on the people's scale and corrected by their labels (prediction-powered
inference, ``shared.analysis.stats.prediction_powered_mean``). Pure: labels and scores in, an estimate out.

The people's scale of a field: pass/fail is a pass rate in [0, 1]; a scale ``[low, high]`` is its
mean in [low, high]. On it:

- an item's people's value is the mean of its reviewers' answers (pass/fail: the share who passed),
  so an item two reviewers disagree on counts as 0.5 instead of being left out;
- the evaluator's value is its score read in the field's terms (``judge_value``): pass/fail whether
  the score passes the metric's criterion (1 or 0), a scale the score placed on it by the metric's
  range, *not* rounded (the unrounded value predicts people's mean better).

The labelled items are the queue's items with an answer; the unlabelled ones are the other items of
the population the queue was drawn from, each with the evaluator's score. Categorical and text fields
have no mean: no estimate.
"""

from __future__ import annotations

from collections.abc import Sequence

from shared.analysis.stats import prediction_powered_mean
from yardstick.api.metric_spec import MetricSpec
from yardstick.api.prediction_powered import PredictionPoweredMean
from yardstick.api.review import LabelValue, RubricField


def people_scale(rubric_field: RubricField) -> tuple[float, float] | None:
    """The range of the field's people's mean; None when it has none (categorical, text)."""
    if rubric_field.kind == "binary":
        return 0.0, 1.0
    if rubric_field.kind == "ordinal" and rubric_field.scale is not None:
        return float(rubric_field.scale[0]), float(rubric_field.scale[1])
    return None


def people_value(rubric_field: RubricField, answers: Sequence[LabelValue]) -> float | None:
    """The mean of the reviewers' answers on the people's scale; None without a numeric answer."""
    values = [
        float(a)
        for a in answers
        if (rubric_field.kind == "binary" and isinstance(a, bool))
        or (rubric_field.kind == "ordinal" and isinstance(a, int) and not isinstance(a, bool))
    ]
    return sum(values) / len(values) if values else None


def judge_value(rubric_field: RubricField, spec: MetricSpec, value: float | None) -> float | None:
    """The evaluator's score on the people's scale (unrounded); None when not measured or not readable."""
    if value is None:
        return None
    if rubric_field.kind == "binary":
        return 1.0 if spec.criterion.passes(value) else 0.0
    if rubric_field.kind == "ordinal" and rubric_field.scale is not None:
        low, high = rubric_field.scale
        lo, hi = spec.range
        share = (value - lo) / (hi - lo) if lo is not None and hi is not None and hi > lo else value
        return low + min(max(share, 0.0), 1.0) * (high - low)
    return None


def human_scale_mean(
    rubric_field: RubricField,
    spec: MetricSpec,
    labelled: Sequence[tuple[Sequence[LabelValue], float | None]],
    unlabelled: Sequence[float | None],
) -> PredictionPoweredMean | None:
    """The people's mean of the field by PPI, the evaluator alone and the labels alone.

    ``labelled``: per labelled item, the reviewers' answers and the evaluator's raw score;
    ``unlabelled``: the evaluator's raw scores of the population's other items. None for a field
    without a mean."""
    scale = people_scale(rubric_field)
    if scale is None:
        return None
    return prediction_powered_mean(
        [people_value(rubric_field, answers) for answers, _ in labelled],
        [judge_value(rubric_field, spec, score) for _, score in labelled],
        [judge_value(rubric_field, spec, score) for score in unlabelled],
        scale=scale,
    )
