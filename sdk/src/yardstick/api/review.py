"""Review queues: items people label with a rubric; the labels become scores of source ``human``.

A queue is made once from a source (an experiment's items, filtered, or the sampled OpenTelemetry
traces of one application) and keeps the items it was made with. Its rubric has one or more fields,
each
``binary`` (pass/fail), ``ordinal`` (an integer scale), ``categorical`` (a fixed set) or ``text``.
A label gives a value per field; it is checked against the rubric (a value that does not fit is a
422 naming the field). One reviewer labelling an item again replaces their label.

A numeric field (binary, ordinal) becomes the score ``human.<field>`` of the item, normalised to
[0, 1] (binary: pass 1, fail 0; ordinal: (value - low) / (high - low)), the mean over the item's
reviewers, with each reviewer's raw value in the score's metadata (``source: human``).
Pure data: no I/O.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field, field_validator, model_validator

HUMAN_SOURCE = "human"
HUMAN_METRIC_PREFIX = "human."
FIELD_NAME_PATTERN = r"^[a-z][a-z0-9_]{0,39}$"
MAX_FIELDS = 10
MAX_QUEUE_ITEMS = 5_000

FieldKind = Literal["binary", "ordinal", "categorical", "text"]
LabelValue = bool | int | str


def human_metric(field: str) -> str:
    """The score name a rubric field's labels are stored under."""
    return HUMAN_METRIC_PREFIX + field


class RubricField(BaseModel, frozen=True):
    """One thing a reviewer answers about an item."""

    name: str = Field(pattern=FIELD_NAME_PATTERN, description="Lower-case id: correct, helpfulness, …")
    kind: FieldKind = Field(description="binary (pass/fail), ordinal (a scale), categorical, text")
    instructions: str = Field(default="", max_length=4000, description="What the reviewer judges, in words")
    scale: tuple[int, int] | None = Field(
        default=None, description="ordinal only: lowest and highest value, e.g. [1, 5] (at most 10 steps)"
    )
    options: list[str] | None = Field(
        default=None, description="categorical only: the allowed values (2 to 20, each at most 100 chars)"
    )
    required: bool = Field(default=True, description="A label must give this field (text: optional)")

    @model_validator(mode="after")
    def _shape(self) -> RubricField:
        if self.kind == "ordinal":
            if self.scale is None or not (self.scale[0] < self.scale[1] <= self.scale[0] + 9):
                raise ValueError(
                    f"field {self.name!r}: an ordinal field needs a scale [low, high], 2-10 steps"
                )
        elif self.scale is not None:
            raise ValueError(f"field {self.name!r}: only an ordinal field has a scale")
        if self.kind == "categorical":
            if (
                not self.options
                or not 2 <= len(self.options) <= 20
                or len(set(self.options)) != len(self.options)
            ):
                raise ValueError(f"field {self.name!r}: a categorical field needs 2-20 distinct options")
            if any(not 1 <= len(o) <= 100 for o in self.options):
                raise ValueError(f"field {self.name!r}: options are 1-100 characters")
        elif self.options is not None:
            raise ValueError(f"field {self.name!r}: only a categorical field has options")
        return self

    @property
    def numeric(self) -> bool:
        """Whether its labels become a ``human.<name>`` score."""
        return self.kind in ("binary", "ordinal")

    def check(self, value: Any) -> LabelValue:
        """``value`` if it fits this field; ValueError naming the field and what fits otherwise."""
        if self.kind == "binary":
            if isinstance(value, bool):
                return value
            raise ValueError(f"field {self.name!r} is pass/fail: give true or false")
        if self.kind == "ordinal":
            assert self.scale is not None
            low, high = self.scale
            if isinstance(value, int) and not isinstance(value, bool) and low <= value <= high:
                return value
            raise ValueError(f"field {self.name!r} is a scale: give a whole number from {low} to {high}")
        if self.kind == "categorical":
            assert self.options is not None
            if isinstance(value, str) and value in self.options:
                return value
            raise ValueError(f"field {self.name!r} takes one of: {', '.join(self.options)}")
        if isinstance(value, str) and len(value) <= 4000:
            return value
        raise ValueError(f"field {self.name!r} is free text (at most 4000 characters)")

    def normalised(self, value: LabelValue) -> float | None:
        """The score a numeric label stands for, in [0, 1]; None for categorical and text."""
        if self.kind == "binary":
            return 1.0 if value is True else 0.0
        if self.kind == "ordinal" and isinstance(value, int) and self.scale is not None:
            low, high = self.scale
            return (value - low) / (high - low)
        return None

    def said(self, value: LabelValue) -> str:
        """A label's value in words, as a score's comment gives it: binary ``pass``/``fail``."""
        if self.kind == "binary":
            return "pass" if value is True else "fail"
        return str(value)


class Rubric(BaseModel, frozen=True):
    instructions: str = Field(default="", max_length=8000, description="What reviewers look for, in words")
    fields: list[RubricField] = Field(min_length=1, max_length=MAX_FIELDS)

    @model_validator(mode="after")
    def _unique(self) -> Rubric:
        names = [f.name for f in self.fields]
        if len(set(names)) != len(names):
            raise ValueError("rubric field names must be distinct")
        return self

    def field(self, name: str) -> RubricField | None:
        return next((f for f in self.fields if f.name == name), None)

    def check(self, values: dict[str, Any]) -> dict[str, LabelValue]:
        """The label's values if they fit; ValueError naming the first field that does not."""
        unknown = sorted(set(values) - {f.name for f in self.fields})
        if unknown:
            raise ValueError(
                f"no rubric field {unknown[0]!r}: the fields are {', '.join(f.name for f in self.fields)}"
            )
        checked: dict[str, LabelValue] = {}
        for f in self.fields:
            if f.name not in values or values[f.name] is None:
                if f.required and f.kind != "text":
                    raise ValueError(f"field {f.name!r} is required")
                continue
            checked[f.name] = f.check(values[f.name])
        return checked


class ExperimentItemsSource(BaseModel, frozen=True):
    """Items of one finished experiment, narrowed by a filter."""

    kind: Literal["experiment"] = "experiment"
    experiment_id: str = Field(max_length=36)
    failing: str | None = Field(
        default=None, max_length=100, description="Only items whose score of this metric fails its criterion"
    )
    category: str | None = Field(
        default=None, max_length=200, description="Only items of this metadata.category"
    )
    sample: int | None = Field(default=None, ge=1, le=MAX_QUEUE_ITEMS, description="A random sample of n")
    seed: int = Field(default=0, ge=0, le=2**31 - 1, description="The sample's seed (same seed, same items)")


class TracesSource(BaseModel, frozen=True):
    """Sampled OpenTelemetry traces of one application, narrowed by a filter."""

    kind: Literal["traces"] = "traces"
    application: str = Field(
        min_length=1, max_length=200, description="The application (its traces' service.name)"
    )
    since: datetime | None = Field(default=None, description="Traces started at or after this time")
    until: datetime | None = Field(default=None, description="Traces started before this time")
    model: str | None = Field(default=None, max_length=200, description="Only traces of this model")
    evaluator: str | None = Field(
        default=None, max_length=100, description="With below: the online score to filter on"
    )
    below: float | None = Field(default=None, description="Only traces whose evaluator score is below this")
    errors_only: bool = Field(default=False, description="Only traces with a span in ERROR status")
    alert_id: str | None = Field(
        default=None,
        max_length=36,
        description="A drift alert on this application: its window and model (unless given here)",
    )
    sample: int | None = Field(default=None, ge=1, le=MAX_QUEUE_ITEMS, description="A random sample of n")
    seed: int = Field(default=0, ge=0, le=2**31 - 1, description="The sample's seed (same seed, same traces)")

    @field_validator("since", "until")
    @classmethod
    def _utc(cls, value: datetime | None) -> datetime | None:
        """A time without a zone is UTC (the traces' start times are)."""
        return value.replace(tzinfo=UTC) if value is not None and value.tzinfo is None else value

    @model_validator(mode="after")
    def _consistent(self) -> TracesSource:
        if (self.evaluator is None) != (self.below is None):
            raise ValueError("give evaluator and below together (traces whose evaluator score is below it)")
        if self.since is not None and self.until is not None and self.since >= self.until:
            raise ValueError("since must be before until")
        return self


ReviewSource = Annotated[ExperimentItemsSource | TracesSource, Field(discriminator="kind")]


class QueueDefinition(BaseModel):
    """What a queue reviews and how: stored with the queue (``review_queues.definition``)."""

    schema_version: int = 1
    source: ReviewSource
    rubric: Rubric
    reviewers_per_item: int = Field(default=1, ge=1, le=2, description="2: for agreement between people")
    hide_scores: bool = Field(
        default=True, description="Hide the evaluators' scores until the reviewer has labelled (no anchoring)"
    )


class QueueCreate(QueueDefinition):
    """``POST /review/queues``: a queue over the items its source selects now."""

    name: str = Field(min_length=1, max_length=200)
    description: str = Field(default="", max_length=2000)
    assign: list[Annotated[str, Field(min_length=1, max_length=100)]] = Field(
        default_factory=list,
        max_length=100,
        description="Reviewers to deal the items to, round-robin; each is offered their own items first",
    )


class QueueOut(QueueDefinition):
    id: str
    name: str
    description: str
    created_at: datetime
    created_by: str
    items: int = Field(description="Items in the queue")
    labelled: int = Field(description="Items with as many labels as reviewers_per_item asks")
    labels: int = Field(description="Labels given, all reviewers")


class LabelIn(BaseModel):
    """``PUT /review/queues/{id}/items/{n}/label``: one reviewer's answer for one item."""

    values: dict[str, LabelValue] = Field(
        description="field → value (true/false, an integer, an option, text)"
    )
    reviewer: str | None = Field(
        default=None, min_length=1, max_length=100, description="Who labels (default: the API key's name)"
    )


class LabelOut(BaseModel):
    reviewer: str
    values: dict[str, LabelValue]
    created_at: datetime
    updated_at: datetime


class ReviewItemOut(BaseModel):
    """One item of a queue with what a reviewer needs to judge it."""

    queue_id: str
    position: int = Field(description="1-based place in the queue")
    total: int = Field(description="Items in the queue")
    experiment_id: str | None = None
    item_id: str | None = None
    trial: int | None = None
    trace_id: str | None = Field(default=None, description="A trace item: the trace's 32-hex id")
    trace_url: str | None = Field(default=None, description="A trace item: its page in the web UI")
    input: Any = None
    output: Any = None
    expected_output: Any = None
    metadata: dict[str, Any] = Field(default_factory=dict)
    scores: dict[str, float | None] | None = Field(
        default=None, description="The evaluators' scores; None while hidden (not yet labelled)"
    )
    labels: list[LabelOut] = Field(default_factory=list)
    assigned_to: str | None = None


class Assignment(BaseModel):
    """``PUT /review/queues/{queue}/items/{n}/assignee``."""

    reviewer: str | None = Field(max_length=100, description="Who should label it; None: anyone")


class NextItem(BaseModel):
    position: int | None = Field(description="The next item to label; None when the queue is done for you")


class QueueToDataset(BaseModel):
    dataset: str = Field(min_length=1, max_length=200, description="The dataset to add the reviewed items to")
