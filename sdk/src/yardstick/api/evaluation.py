"""The result of one evaluator on one item (or one run)."""

from __future__ import annotations

import json
import math
from typing import Any

from pydantic import BaseModel, Field, model_validator


class EvaluatorFailure(BaseModel, frozen=True):
    """An evaluator that raised, with its story (pydantic_evals' ``EvaluatorFailure``)."""

    type: str = Field(description="The exception's class name")
    message: str = Field(description="The exception's message")
    traceback: str = Field(default="", description="The formatted traceback, for the evaluator's author")
    evaluator: str = Field(description="The evaluator that failed (registry name)")
    evaluator_version: str | None = Field(default=None, description="Its declared version")


class Evaluation(BaseModel):
    """One score. Field names match Langfuse's ``Evaluation`` so evaluators drop into
    ``run_experiment`` unchanged."""

    name: str = Field(description="Metric name, e.g. 'order_correctness'")
    value: float | bool | None = Field(
        default=None, description="The score; None when the evaluator failed or was skipped"
    )
    comment: str | None = Field(default=None, description="Human-readable explanation of the score")
    metadata: dict[str, Any] = Field(default_factory=dict, description="Structured details")
    error: str | None = Field(
        default=None, description="'ErrorType: message' when the evaluator raised; value is then None"
    )
    failure: EvaluatorFailure | None = Field(
        default=None, description="When the evaluator raised: type, message, traceback, evaluator and version"
    )
    evaluator_version: str | None = Field(
        default=None, description="The declared version of the evaluator that produced this score"
    )

    @property
    def numeric(self) -> float | None:
        """The value as a float (bools become 0/1), or None; NaN is no measurement either (None)."""
        if self.value is None:
            return None
        value = float(self.value)
        return None if math.isnan(value) else value


class EvaluatorSpec(BaseModel, frozen=True):
    """A registry reference: evaluator name plus JSON-serialisable arguments.

    Also accepts its short form, the string ``NAME`` or ``NAME:{json object of args}``.
    """

    name: str = Field(min_length=1, description="Name in the evaluator registry")
    args: dict[str, Any] = Field(default_factory=dict, description="Keyword arguments for the evaluator")

    @classmethod
    def parse(cls, text: str) -> EvaluatorSpec:
        """``NAME[:JSON_ARGS]`` → spec; raises ``ValueError`` saying what is wrong with the text."""
        name, _, raw_args = text.partition(":")
        args: Any = {}
        if raw_args.strip():
            try:
                args = json.loads(raw_args)
            except json.JSONDecodeError as exc:
                raise ValueError(f"evaluator {text!r}: arguments are not valid JSON: {exc.msg}") from exc
            if not isinstance(args, dict):
                raise ValueError(f'evaluator {text!r}: arguments must be a JSON object like {{"k": 5}}')
        return cls(name=name.strip(), args=args)

    @model_validator(mode="before")
    @classmethod
    def _short_form(cls, value: Any) -> Any:
        return cls.parse(value).model_dump() if isinstance(value, str) else value
