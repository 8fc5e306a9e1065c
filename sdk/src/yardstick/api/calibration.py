"""``GET /review/queues/{queue}/calibration``: an evaluator against people on one rubric field, and
the people against each other. Pure data: computed by ``shared.analysis.calibration``."""

from __future__ import annotations

from pydantic import BaseModel, Field

from yardstick.api.agreement import BinaryAgreement, CategoricalAgreement, JudgeComparison, OrdinalAgreement
from yardstick.api.prediction_powered import PredictionPoweredMean
from yardstick.api.review import FieldKind, LabelValue

Agreement = BinaryAgreement | OrdinalAgreement | CategoricalAgreement


class Disagreement(BaseModel):
    """An item where the evaluator's reading differs from the people's label."""

    position: int = Field(description="The item's place in the queue")
    title: str = Field(description="The item's id, or the production turn")
    link: str = Field(description="Its page in the web UI")
    human: LabelValue
    evaluator: LabelValue
    score: float | None = Field(description="The evaluator's raw score")
    distance: float = Field(description="How far apart (steps on a scale; 1 for pass/fail): worst first")


class CalibrationReport(BaseModel):
    field: str = Field(description="The rubric field")
    kind: FieldKind
    evaluator: str | None = Field(description="The evaluator compared with the people (None: people only)")
    items: int = Field(description="Items of the queue with at least one label")
    evaluators: list[str] = Field(default_factory=list, description="Evaluators that scored those items")
    judge_vs_human: Agreement | None = Field(
        default=None, description="The evaluator's reading against the people's label (the reference)"
    )
    between_reviewers: Agreement | None = Field(
        default=None, description="First against second reviewer, on items labelled twice"
    )
    disagreements: list[Disagreement] = Field(default_factory=list, description="Worst first")
    disagreement_count: int = 0
    comparison: JudgeComparison | None = Field(
        default=None, description="A second evaluator against the first, on the same items and labels"
    )
    human_scale: dict[str, PredictionPoweredMean] = Field(
        default_factory=dict,
        description="Per evaluator (the one calibrated, then the one compared with it): the people's mean "
        "of the field over the queue's population, estimated from the evaluator's scores corrected by the "
        "labels (prediction-powered inference), beside the evaluator alone and the labels alone",
    )
    population: str | None = Field(
        default=None, description="The items the human-scale estimates are about (labelled and not), in words"
    )
    notes: list[str] = Field(default_factory=list, description="What was left out and why")
