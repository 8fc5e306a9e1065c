"""How one metric's values pass: the shape evaluators declare and experiments may override.

A criterion is written in full (``{"direction": "higher_is_better", "threshold": 0.8}``) or in
its short form: ``">=0.8"``, ``"<=0.1"`` or ``"informational"`` (never gates an item).
Whether an item passes is decided in ``shared.analysis.pass_rule``, the one place that does.
"""

from __future__ import annotations

import math
import re
from typing import Any, Literal

from pydantic import BaseModel, Field, model_validator

Direction = Literal["higher_is_better", "lower_is_better", "informational"]

_SHORT = re.compile(r"^\s*(>=|<=)\s*([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)\s*$")


class PassCriterion(BaseModel, frozen=True):
    """How one metric's values pass."""

    direction: Direction
    threshold: float | None = Field(
        default=None,
        description="Pass at value >= threshold (higher is better) or <= threshold (lower is better); "
        "None when informational",
    )

    @model_validator(mode="before")
    @classmethod
    def _short_form(cls, data: Any) -> Any:
        if not isinstance(data, str):
            return data
        if data.strip() == "informational":
            return {"direction": "informational", "threshold": None}
        match = _SHORT.match(data)
        if match is None:
            raise ValueError(f"{data!r} is not a pass criterion: write '>=0.8', '<=0.1' or 'informational'")
        op, number = match.groups()
        direction = "higher_is_better" if op == ">=" else "lower_is_better"
        return {"direction": direction, "threshold": float(number)}

    @model_validator(mode="after")
    def _consistent(self) -> PassCriterion:
        if self.direction == "informational":
            if self.threshold is not None:
                raise ValueError("an informational criterion has no threshold")
        elif self.threshold is None or not math.isfinite(self.threshold):
            raise ValueError(f"a {self.direction} criterion needs a finite threshold")
        return self

    @property
    def gates(self) -> bool:
        """Whether the metric can fail an item (informational metrics cannot)."""
        return self.threshold is not None

    def describe(self) -> str:
        """``>= 0.5``, ``<= 0.1`` or ``informational``, as shown to people."""
        if self.threshold is None:
            return "informational"
        op = "<=" if self.direction == "lower_is_better" else ">="
        return f"{op} {self.threshold:g}"

    def passes(self, value: float | None) -> bool | None:
        """True/False for a measured value; None when not measured or informational."""
        if value is None or math.isnan(value) or self.threshold is None:
            return None
        if self.direction == "lower_is_better":
            return value <= self.threshold
        return value >= self.threshold


def higher_is_better(threshold: float) -> PassCriterion:
    return PassCriterion(direction="higher_is_better", threshold=threshold)


def lower_is_better(threshold: float) -> PassCriterion:
    return PassCriterion(direction="lower_is_better", threshold=threshold)


INFORMATIONAL = PassCriterion(direction="informational")
