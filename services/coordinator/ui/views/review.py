"""The review page's view model: the item as a reviewer reads it, the rubric as keyboard-driven
controls, and each field's keys (one place, read by the template and the page's script)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from services.coordinator.ui.views.item import TranscriptEntry, pretty, transcript
from yardstick.api.review import LabelValue, QueueOut, ReviewItemOut, RubricField


class Choice(BaseModel):
    key: str  # the keyboard key that picks it
    label: str
    value: LabelValue


class FieldControl(BaseModel):
    field: RubricField
    choices: list[Choice]  # empty for text
    current: LabelValue | None  # this reviewer's earlier answer


class ReviewPage(BaseModel):
    queue: QueueOut
    item: ReviewItemOut
    transcript: list[TranscriptEntry]
    input_json: str
    output_json: str | None
    expected_json: str | None
    controls: list[FieldControl]
    labelled: bool  # this reviewer has labelled it
    other_labels: int  # labels by other reviewers


def choices(field: RubricField) -> list[Choice]:
    """binary: y / n; ordinal: its digits (0 stands for 10); categorical: 1, 2, …"""
    if field.kind == "binary":
        return [Choice(key="y", label="Pass", value=True), Choice(key="n", label="Fail", value=False)]
    if field.kind == "ordinal" and field.scale is not None:
        return [
            Choice(key=str(v % 10), label=str(v), value=v) for v in range(field.scale[0], field.scale[1] + 1)
        ]
    if field.kind == "categorical" and field.options is not None:
        return [Choice(key=str(n % 10), label=o, value=o) for n, o in enumerate(field.options, start=1)]
    return []


def review_page(queue: QueueOut, item: ReviewItemOut, reviewer: str) -> ReviewPage:
    mine = next((label for label in item.labels if label.reviewer == reviewer), None)
    output: dict[str, Any] | None = item.output if isinstance(item.output, dict) else None
    return ReviewPage(
        queue=queue,
        item=item,
        transcript=transcript(output),
        input_json=pretty(item.input),
        output_json=None if item.output is None else pretty(item.output),
        expected_json=None if item.expected_output is None else pretty(item.expected_output),
        controls=[
            FieldControl(field=f, choices=choices(f), current=mine.values.get(f.name) if mine else None)
            for f in queue.rubric.fields
        ],
        labelled=mine is not None,
        other_labels=sum(1 for label in item.labels if label.reviewer != reviewer),
    )
