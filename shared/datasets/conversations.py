"""Scripted drive-thru conversations (``conversations:``): file format, dataset items, and the item
shape the agent target and the conversation evaluators read.

File format (YAML or JSON)::

    name: drive-thru/conversations-v1
    description: …
    conversations:
      - id: add-two-then-done
        category: multi_item
        description: …
        must_finalize: true            # true: finalized by the end; false: not; omitted: not checked
        turns:
          - customer: Can I get an Egg McMuffin?
            expected_order:            # optional: the order right after this turn
              - {item_id: egg-mcmuffin, name: Egg McMuffin, quantity: 1}
          - customer: That's all.
          - customer: Yes.
        expected_final_order: […]      # optional: the order at the end (default: the last turn's)

A conversation becomes one dataset item of kind ``conversation``::

    input:           {turns: ["Can I get…", "That's all.", "Yes."]}
    expected_output: {expected_items: [final order] (when known), must_finalize: bool | None,
                      turn_expectations: [{turn_index, expected_items}]}
    metadata:        {category, description, turn_count}
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from shared.contracts.agent_conversation import MAX_CONVERSATION_TURNS
from shared.datasets.files import DatasetFileError
from yardstick.api.agent_messages import OrderLine, TrajectoryMessage
from yardstick.api.item_errors import item_label, problem_lines
from yardstick.api.validation_messages import describe_errors

CONVERSATION_KIND = "conversation"


class ConversationFileError(DatasetFileError):
    """A conversation file does not follow the format; the message names the case and the field."""


class ScriptedTurn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    customer: str = Field(min_length=1, max_length=2000, description="What the customer says")
    expected_order: list[OrderLine] | None = Field(
        default=None, description="The whole order right after this turn (omit: not checked)"
    )


class ConversationCase(BaseModel):
    model_config = ConfigDict(extra="forbid")
    id: str = Field(min_length=1, max_length=200)
    category: str = "uncategorised"
    description: str = ""
    turns: list[ScriptedTurn] = Field(min_length=1, max_length=MAX_CONVERSATION_TURNS)
    expected_final_order: list[OrderLine] | None = Field(
        default=None, description="The order at the end (default: the last turn's expected order)"
    )
    must_finalize: bool | None = Field(
        default=None,
        description="true: the order must be finalized by the end; false: it must not be; None: not checked",
    )


class ConversationFile(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str | None = None
    description: str = "Scripted drive-thru conversations"
    metadata: dict[str, Any] = Field(default_factory=dict)
    conversations: list[ConversationCase] = Field(min_length=1)

    @model_validator(mode="after")
    def _unique_ids(self) -> ConversationFile:
        seen: set[str] = set()
        for case in self.conversations:
            if case.id in seen:
                raise ValueError(f"duplicate conversation id {case.id!r}")
            seen.add(case.id)
        return self


# --- the item shape (what a ``conversation`` dataset item holds) ---------------------------------


class ConversationInput(BaseModel):
    """``input`` of a conversation item: the customer turns, and optionally earlier messages."""

    turns: list[str] = Field(min_length=1, max_length=MAX_CONVERSATION_TURNS)
    messages: list[TrajectoryMessage] = Field(default_factory=list)

    @model_validator(mode="after")
    def _non_empty_turns(self) -> ConversationInput:
        for index, turn in enumerate(self.turns):
            if not turn.strip():
                raise ValueError(f"turn {index} is empty")
        return self


class TurnExpectation(BaseModel):
    turn_index: int = Field(ge=0)
    expected_items: list[OrderLine]


class ConversationExpectation(BaseModel):
    """``expected_output`` of a conversation item."""

    expected_items: list[OrderLine] | None = Field(default=None, description="The final order")
    must_finalize: bool | None = None
    turn_expectations: list[TurnExpectation] = Field(default_factory=list)


class ConversationItem(BaseModel):
    """One conversation as a dataset item (validated when a ``conversation`` dataset is loaded)."""

    id: str
    input: ConversationInput
    expected_output: ConversationExpectation = Field(default_factory=ConversationExpectation)
    metadata: dict[str, Any] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _expectations_inside(self) -> ConversationItem:
        turns = len(self.input.turns)
        for expectation in self.expected_output.turn_expectations:
            if expectation.turn_index >= turns:
                raise ValueError(
                    f"turn_expectations names turn {expectation.turn_index}; "
                    f"the conversation has {turns} turns"
                )
        return self


def case_to_item(case: ConversationCase) -> ConversationItem:
    expectations = [
        TurnExpectation(turn_index=index, expected_items=turn.expected_order)
        for index, turn in enumerate(case.turns)
        if turn.expected_order is not None
    ]
    final = case.expected_final_order
    if final is None and case.turns[-1].expected_order is not None:
        final = case.turns[-1].expected_order
    return ConversationItem(
        id=case.id,
        input=ConversationInput(turns=[turn.customer for turn in case.turns]),
        expected_output=ConversationExpectation(
            expected_items=final, must_finalize=case.must_finalize, turn_expectations=expectations
        ),
        metadata={"category": case.category, "description": case.description, "turn_count": len(case.turns)},
    )


def _item_record(item: ConversationItem) -> dict[str, Any]:
    record = item.model_dump(mode="json")
    if item.expected_output.expected_items is None:
        del record["expected_output"]["expected_items"]
    return record


def parse_conversations(raw: Any, source: str = "<data>") -> ConversationFile:
    try:
        return ConversationFile.model_validate(raw)
    except ValidationError as exc:
        cases = raw.get("conversations") if isinstance(raw, dict) else None
        problems = problem_lines(exc, ConversationFile, cases, key="conversations", noun="conversation")
        raise ConversationFileError(
            f"{source}: does not follow the conversation format:\n{problems}"
        ) from exc


def conversations_file_to_dataset(path: Path, raw: dict[str, Any]) -> dict[str, Any]:
    """A parsed conversation file (``{"conversations": …}``) in the generic dataset-file shape
    (``{name, description, kind: "conversation", metadata, items}``) for ``shared.datasets.files``."""
    parsed = parse_conversations(raw, str(path))
    return {
        "name": parsed.name or path.stem,
        "description": parsed.description,
        "kind": CONVERSATION_KIND,
        "metadata": {"format": "conversations", **parsed.metadata},
        "items": [_item_record(case_to_item(case)) for case in parsed.conversations],
    }


def check_conversation_items(items: list[dict[str, Any]], source: str) -> None:
    """Every item of a ``conversation`` dataset has the conversation item shape."""
    for index, raw in enumerate(items):
        try:
            ConversationItem.model_validate(raw)
        except ValidationError as exc:
            problems = "; ".join(describe_errors(exc, ConversationItem))
            raise ConversationFileError(
                f"{source}: {item_label(index, raw)} is not a conversation: {problems}"
            ) from exc
