"""Calibration: how well an evaluator (a judge above all) agrees with people on one rubric field,
set beside how well the people agree with each other. Pure: the items come in, a report goes out.

Per item, the *human label* of a field is its reviewers' answer when they agree; when two reviewers
differ it is left out for pass/fail and categorical fields (counted as "reviewers disagree"), and is
the rounded mean for a scale. The *evaluator's label* is its score read in the field's terms:

- pass/fail: whether the score passes the metric's criterion (its ``MetricSpec``, the same rule the
  reports use); a score that was not measured is left out;
- a scale ``[low, high]``: the score placed on the scale by the metric's range (a [0, 1] score s is
  ``round(low + s * (high - low))``);
- a categorical field has no evaluator reading: only the people's agreement is reported.

The statistics (κ with intervals, weighted κ and Spearman's rho for scales, true-positive and
true-negative rates) are ``shared.analysis.stats.agreement``'s; a second evaluator is compared with the first
on the same items by ``shared.analysis.stats.judge_comparison``. Given the population the queue was drawn from
(the evaluators' scores of its items nobody labelled), each evaluator's mean is also read on the
people's scale and corrected by their labels (prediction-powered inference, ``human_scale``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from shared.analysis.human_scale import human_scale_mean, judge_value
from shared.analysis.stats import binary_agreement, categorical_agreement, compare_judges, ordinal_agreement
from yardstick.api.agreement import BinaryAgreement, CategoricalAgreement, OrdinalAgreement
from yardstick.api.calibration import CalibrationReport, Disagreement
from yardstick.api.metric_spec import MetricSpec
from yardstick.api.prediction_powered import PredictionPoweredMean
from yardstick.api.review import LabelValue, RubricField

Agreement = BinaryAgreement | OrdinalAgreement | CategoricalAgreement


@dataclass(frozen=True)
class CalibrationItem:
    """One reviewed item: its place in the queue, what to call it, each reviewer's answer for the
    field (in labelling order) and the evaluators' scores."""

    position: int
    title: str
    link: str
    answers: Sequence[LabelValue]
    scores: dict[str, float | None] = field(default_factory=dict)


@dataclass(frozen=True)
class Population:
    """The items the queue was drawn from that nobody labelled: what they are, in words, and each
    evaluator's scores of them (None: not measured)."""

    description: str
    unlabelled: Mapping[str, Sequence[float | None]]


def human_label(rubric_field: RubricField, answers: Sequence[LabelValue]) -> LabelValue | None:
    """The people's label for an item (see the module docstring); None when they gave none or differ."""
    if not answers:
        return None
    if all(a == answers[0] for a in answers):
        return answers[0]
    if rubric_field.kind == "ordinal":
        values = [a for a in answers if isinstance(a, int) and not isinstance(a, bool)]
        return round(sum(values) / len(values)) if values else None
    return None


def evaluator_label(rubric_field: RubricField, spec: MetricSpec, value: float | None) -> LabelValue | None:
    """The evaluator's score read as an answer to the field; None when not measured or not readable."""
    if value is None:
        return None
    if rubric_field.kind == "binary":
        return spec.criterion.passes(value)
    on_scale = judge_value(rubric_field, spec, value)
    return None if on_scale is None else round(on_scale)


def _agreement(
    rubric_field: RubricField, reference: list[LabelValue | None], other: list[LabelValue | None]
) -> Agreement:
    if rubric_field.kind == "binary":
        return binary_agreement(reference, other, positive=True, negative=False)
    if rubric_field.kind == "ordinal" and rubric_field.scale is not None:
        scale = list(range(rubric_field.scale[0], rubric_field.scale[1] + 1))
        return ordinal_agreement(reference, other, categories=scale)
    return categorical_agreement(reference, other, categories=list(rubric_field.options or []))


def _distance(rubric_field: RubricField, human: LabelValue, judge: LabelValue) -> float:
    if rubric_field.kind == "ordinal" and isinstance(human, int) and isinstance(judge, int):
        return float(abs(human - judge))
    return 0.0 if human == judge else 1.0


def calibrate(
    rubric_field: RubricField,
    items: Sequence[CalibrationItem],
    evaluator: str | None,
    spec: MetricSpec | None,
    *,
    against: str | None = None,
    against_spec: MetricSpec | None = None,
    worst: int = 50,
    population: Population | None = None,
) -> CalibrationReport:
    """The calibration report of ``evaluator`` (and, optionally, ``against`` compared with it); with
    the ``population``, each one's mean on the people's scale corrected by their labels."""
    humans = [human_label(rubric_field, item.answers) for item in items]
    scored = sorted({name for item in items for name in item.scores})
    notes: list[str] = []
    disagreeing_people = sum(1 for item, h in zip(items, humans, strict=True) if item.answers and h is None)
    if disagreeing_people:
        notes.append(f"{disagreeing_people} item(s) left out: their reviewers gave different answers")
    two = [item for item in items if len(item.answers) >= 2]
    between = (
        _agreement(rubric_field, [i.answers[0] for i in two], [i.answers[1] for i in two]) if two else None
    )
    if rubric_field.kind in ("categorical", "text") or evaluator is None or spec is None:
        if evaluator is not None:
            notes.append(
                f"a {rubric_field.kind} field has no evaluator reading: only the reviewers' agreement"
            )
        return CalibrationReport(
            field=rubric_field.name,
            kind=rubric_field.kind,
            evaluator=None,
            items=len(items),
            evaluators=scored,
            between_reviewers=between,
            notes=notes,
        )
    judged = [evaluator_label(rubric_field, spec, item.scores.get(evaluator)) for item in items]
    versus = _agreement(rubric_field, humans, judged)
    disagreements = sorted(
        (
            Disagreement(
                position=item.position,
                title=item.title,
                link=item.link,
                human=h,
                evaluator=j,
                score=item.scores.get(evaluator),
                distance=_distance(rubric_field, h, j),
            )
            for item, h, j in zip(items, humans, judged, strict=True)
            if h is not None and j is not None and h != j
        ),
        key=lambda d: (-d.distance, d.position),
    )
    comparison = None
    if against is not None and against_spec is not None:
        other = [evaluator_label(rubric_field, against_spec, item.scores.get(against)) for item in items]
        categories: list[LabelValue] = (
            [False, True]
            if rubric_field.kind == "binary"
            else list(range(rubric_field.scale[0], rubric_field.scale[1] + 1))
            if rubric_field.scale
            else []
        )
        comparison = compare_judges(
            humans,
            judged,
            other,
            categories=categories,
            statistic="kappa" if rubric_field.kind == "binary" else "quadratic_kappa",
            name_a=evaluator,
            name_b=against,
        )
    judges = [(evaluator, spec)] + ([(against, against_spec)] if against and against_spec else [])
    return CalibrationReport(
        field=rubric_field.name,
        kind=rubric_field.kind,
        evaluator=evaluator,
        items=len(items),
        evaluators=scored,
        judge_vs_human=versus,
        between_reviewers=between,
        disagreements=disagreements[:worst],
        disagreement_count=len(disagreements),
        comparison=comparison,
        human_scale=_human_scale(rubric_field, items, judges, population),
        population=population.description if population else None,
        notes=notes,
    )


def _human_scale(
    rubric_field: RubricField,
    items: Sequence[CalibrationItem],
    judges: list[tuple[str, MetricSpec]],
    population: Population | None,
) -> dict[str, PredictionPoweredMean]:
    """Per evaluator, its mean on the people's scale corrected by their labels (needs the population)."""
    if population is None:
        return {}
    out: dict[str, PredictionPoweredMean] = {}
    for name, spec in judges:
        labelled = [(item.answers, item.scores.get(name)) for item in items]
        estimate = human_scale_mean(rubric_field, spec, labelled, population.unlabelled.get(name, []))
        if estimate is not None:
            out[name] = estimate
    return out
