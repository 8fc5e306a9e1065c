"""One item's page: input, expected and actual output, the transcript, every score with its verdict,
and every failure (the item's, its evaluators') with its source, type, message and traceback."""

from __future__ import annotations

import json
from typing import Any, Literal

from pydantic import BaseModel, Field, ValidationError

from services.coordinator.ui.views import formatting
from shared.analysis import PassPolicy
from yardstick.api.agent_messages import TrajectoryMessage
from yardstick.api.experiments import ExperimentItemOut
from yardstick.api.item_failure import ItemFailure

Verdict = Literal["pass", "fail", "not measured", "informational", "error"]


class ToolCall(BaseModel):
    name: str
    args: str


class TranscriptEntry(BaseModel):
    role: Literal["user", "assistant", "tool", "system"]
    text: str
    tool_calls: list[ToolCall] = []
    tool_name: str | None = None


class ScoreRow(BaseModel):
    name: str
    value: float | None
    criterion: str
    verdict: Verdict
    comment: str | None
    error: str | None


class ItemPage(BaseModel):
    item: ExperimentItemOut
    transcript: list[TranscriptEntry]
    scores: list[ScoreRow]
    failures: list[ItemFailure] = Field(
        default_factory=list, description="The item's failure, then each evaluator's, by metric name"
    )
    input_json: str
    expected_json: str | None
    output_json: str | None
    usage: dict[str, Any] | None = None
    worker: str | None = None


def pretty(value: Any) -> str:
    return json.dumps(value, indent=2, sort_keys=False, ensure_ascii=False, default=str)


_ROLES: dict[str, Literal["user", "assistant", "tool", "system"]] = {
    "human": "user",
    "ai": "assistant",
    "tool": "tool",
    "system": "system",
}


def transcript(
    output: dict[str, Any] | None, item_input: dict[str, Any] | None = None
) -> list[TranscriptEntry]:
    """The output's trajectory as a readable conversation; the user's utterance alone when the
    target returned no trajectory (search and HTTP targets have none: empty)."""
    raw = (output or {}).get("trajectory")
    entries: list[TranscriptEntry] = []
    if isinstance(raw, list):
        for message in raw:
            try:
                parsed = TrajectoryMessage.model_validate(message)
            except ValidationError:
                continue
            calls = [
                ToolCall(name=str(c.get("name", "?")), args=json.dumps(c.get("args", {}), sort_keys=True))
                for c in parsed.tool_calls
            ]
            entries.append(
                TranscriptEntry(
                    role=_ROLES[parsed.type], text=parsed.content, tool_calls=calls, tool_name=parsed.name
                )
            )
    return entries


def verdict(policy: PassPolicy, name: str, value: float | None, error: str | None) -> Verdict:
    if error:
        return "error"
    criterion = policy.criterion(name)
    if not criterion.gates:
        return "informational"
    passed = criterion.passes(value)
    if passed is None:
        return "not measured"
    return "pass" if passed else "fail"


def item_page(
    item: ExperimentItemOut, policy: PassPolicy, usage: dict[str, Any] | None, worker: str | None
) -> ItemPage:
    by_name = sorted(item.scores, key=lambda s: s.name)
    return ItemPage(
        item=item,
        transcript=transcript(item.output, item.input),
        scores=[
            ScoreRow(
                name=s.name,
                value=s.value,
                criterion=formatting.criterion(policy.criterion(s.name)),
                verdict=verdict(policy, s.name, s.value, s.error),
                comment=s.comment,
                error=s.error,
            )
            for s in by_name
        ],
        failures=[f for f in [item.failure, *(s.failure for s in by_name)] if f is not None],
        input_json=pretty(item.input),
        expected_json=None if item.expected_output is None else pretty(item.expected_output),
        output_json=None if item.output is None else pretty(item.output),
        usage=usage,
        worker=worker,
    )
