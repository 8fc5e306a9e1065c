"""The trajectory-scenario YAML format (``test_cases:``): model, loader, and dataset items.

A scenario becomes a dataset item ``{id, input: {customer_utterance: query[, messages: chat_history]},
expected_output: {reference_trajectory, requirements}, metadata: {category, description}}``
that the trajectory evaluators (``shared.evaluators.trajectory``) score. ``context.chat_history``
(messages in the reference format, or ``{role: user|assistant|system, content}``) becomes the
item's ``input.messages``, the earlier turns the agent answers after.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from shared.datasets.files import DatasetFileError
from yardstick.api.agent_messages import TrajectoryMessage
from yardstick.api.item_errors import problem_lines

TrajectoryMode = Literal["strict", "unordered", "subset", "superset"]


class ScenarioFileError(DatasetFileError):
    """A scenario file is missing, is not YAML, or does not follow the trajectory-scenario format."""


class TrajectoryRequirements(BaseModel):
    model_config = ConfigDict(extra="forbid")
    mandatory_tools: list[str] = Field(default_factory=list, description="Tools that must be called")
    forbidden_tools: list[str] = Field(default_factory=list, description="Tools that must not be called")
    trajectory_mode: TrajectoryMode = Field(default="strict", description="How to match the reference")
    require_match: bool = Field(default=False, description="Gate pass/fail on the reference match too")


class ReferenceToolCall(BaseModel):
    id: str | None = Field(default=None, description="Auto-filled as call_N when omitted")
    name: str
    args: dict[str, Any] = Field(default_factory=dict)


class ReferenceMessage(BaseModel):
    type: Literal["human", "ai", "tool", "system"]
    content: str = ""
    tool_calls: list[ReferenceToolCall] = Field(default_factory=list)
    tool_call_id: str | None = None


class ScenarioContext(BaseModel):
    model_config = ConfigDict(extra="allow")
    session_id: str = "test_session"
    chat_history: list[Any] = Field(default_factory=list)


class TrajectoryScenario(BaseModel):
    model_config = ConfigDict(extra="forbid")
    id: str = Field(min_length=1)
    query: str = Field(min_length=1, description="The user message")
    category: str = "uncategorised"
    description: str = ""
    context_mode: str | None = None
    fixture_id: str | None = None
    requirements: TrajectoryRequirements = Field(default_factory=TrajectoryRequirements)
    reference_trajectory: list[ReferenceMessage] | None = None
    context: ScenarioContext = Field(default_factory=ScenarioContext)


class TrajectoryScenarioFile(BaseModel):
    test_cases: list[TrajectoryScenario]


class ScenarioDatasetItem(BaseModel):
    id: str
    input: dict[str, Any]
    expected_output: dict[str, Any]
    metadata: dict[str, Any]


def _validated(data: dict[str, Any], source: str) -> TrajectoryScenarioFile:
    try:
        return TrajectoryScenarioFile.model_validate(data)
    except ValidationError as exc:
        cases = data.get("test_cases")
        problems = problem_lines(exc, TrajectoryScenarioFile, cases, key="test_cases", noun="test case")
        raise ScenarioFileError(f"{source}: does not follow the scenario format:\n{problems}") from exc


def parse_trajectory_scenarios(text: str, source: str = "<string>") -> TrajectoryScenarioFile:
    """Parse and validate scenario YAML; :class:`ScenarioFileError` says what is wrong where."""
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise ScenarioFileError(f"{source}: not valid YAML: {exc}") from exc
    if not isinstance(data, dict) or "test_cases" not in data:
        raise ScenarioFileError(f"{source}: expected a mapping with a top-level 'test_cases' list")
    parsed = _validated(data, source)
    seen: set[str] = set()
    for case in parsed.test_cases:
        if case.id in seen:
            raise ScenarioFileError(f"{source}: duplicate test case id {case.id!r}")
        seen.add(case.id)
    return parsed


def load_trajectory_scenarios(path: str | Path) -> TrajectoryScenarioFile:
    """Read a trajectory-scenario YAML file."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ScenarioFileError(f"cannot read scenario file {path}: {exc}") from exc
    return parse_trajectory_scenarios(text, str(path))


def _reference_records(messages: list[ReferenceMessage]) -> list[dict[str, Any]]:
    """Reference messages as plain records, with omitted tool call ids filled as call_1..N."""
    records: list[dict[str, Any]] = []
    counter = 0
    for message in messages:
        record = message.model_dump(exclude_none=True)
        if message.tool_calls:
            calls = []
            for call in message.tool_calls:
                counter += 1
                calls.append({"id": call.id or f"call_{counter}", "name": call.name, "args": call.args})
            record["tool_calls"] = calls
        else:
            record.pop("tool_calls", None)
        records.append(record)
    return records


_ROLES = {
    "user": "human",
    "human": "human",
    "assistant": "ai",
    "ai": "ai",
    "system": "system",
    "tool": "tool",
}


def _history_records(case: TrajectoryScenario) -> list[dict[str, Any]]:
    """``context.chat_history`` as agent messages (``role`` spelled as ``type`` accepted)."""
    records: list[dict[str, Any]] = []
    for index, raw in enumerate(case.context.chat_history):
        if not isinstance(raw, dict):
            raise ScenarioFileError(f"test case {case.id!r}: chat_history[{index}] is not a mapping")
        record = dict(raw)
        if "type" not in record and "role" in record:
            record["type"] = _ROLES.get(str(record.pop("role")), "?")
        try:
            message = TrajectoryMessage.model_validate(record)
        except ValidationError as exc:
            raise ScenarioFileError(
                f"test case {case.id!r}: chat_history[{index}] is not a message: {exc}"
            ) from exc
        records.append(
            message.model_dump(mode="json", exclude_none=True, exclude_defaults=True) | {"type": message.type}
        )
    return records


def scenario_to_item(case: TrajectoryScenario) -> ScenarioDatasetItem:
    expected: dict[str, Any] = {"requirements": case.requirements.model_dump()}
    expected["reference_trajectory"] = (
        _reference_records(case.reference_trajectory) if case.reference_trajectory is not None else None
    )
    item_input: dict[str, Any] = {"customer_utterance": case.query}
    history = _history_records(case)
    if history:
        item_input["messages"] = history
    return ScenarioDatasetItem(
        id=case.id,
        input=item_input,
        expected_output=expected,
        metadata={"category": case.category, "description": case.description},
    )


def scenarios_to_items(scenarios: TrajectoryScenarioFile) -> list[ScenarioDatasetItem]:
    """One dataset item per test case, in file order."""
    return [scenario_to_item(case) for case in scenarios.test_cases]


def scenarios_file_to_dataset(path: Path, raw: dict[str, Any]) -> dict[str, Any]:
    """A parsed scenario file (``{"test_cases": …}``) in the generic dataset-file shape
    (``{name, description, kind: "trajectory", metadata, items}``) for ``shared.datasets.files``."""
    parsed = _validated(raw, str(path))
    return {
        "name": str(raw.get("name") or path.stem),
        "description": str(raw.get("description") or "Trajectory scenarios"),
        "kind": "trajectory",
        "metadata": {"format": "trajectory_scenarios", **(raw.get("metadata") or {})},
        "items": [item.model_dump() for item in scenarios_to_items(parsed)],
    }
