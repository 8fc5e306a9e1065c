"""The result of one evaluator on one item (or one run): a value, or a typed failure."""

from __future__ import annotations

import json
import math
from typing import Any, ClassVar

from pydantic import BaseModel, Field, model_validator

from yardstick.api.item_failure import CarriesFailure, FailureSource


class Evaluation(CarriesFailure):
    """One score. Field names match Langfuse's ``Evaluation`` so evaluators drop into
    ``run_experiment`` unchanged. When the evaluator failed, ``failure`` (source ``evaluator``) says
    how and ``value`` is None; ``error`` is its derived ``'Type: message'``."""

    legacy_source: ClassVar[FailureSource] = "evaluator"

    name: str = Field(description="Metric name, e.g. 'order_correctness'")
    value: float | bool | None = Field(
        default=None, description="The score; None when the evaluator failed or was skipped"
    )
    comment: str | None = Field(default=None, description="Human-readable explanation of the score")
    metadata: dict[str, Any] = Field(default_factory=dict, description="Structured details")
    evaluator_version: str | None = Field(
        default=None, description="The declared version of the evaluator that produced this score"
    )

    @classmethod
    def _legacy_evaluator(cls, data: dict[str, Any]) -> str | None:
        name = data.get("name")
        return name if isinstance(name, str) and name else "unknown"

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
