"""Absolute gates: ``order_correctness>=0.9`` — a run's mean of a metric against a fixed bar.

Relative checks (a regression against a baseline) say whether a change made things worse; a gate
says whether the result is good enough at all. A gate on a metric the run did not measure fails:
"not measured" is never a pass.
"""

from __future__ import annotations

import math
import re
from typing import Any, Literal

from pydantic import BaseModel, Field, model_validator

Operator = Literal[">=", ">", "<=", "<"]
_GATE = re.compile(
    r"^\s*(?P<metric>[^<>=\s][^<>=]*?)\s*(?P<op>>=|<=|>|<)\s*(?P<value>[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)\s*$"
)


_ALIASES = {"latency_ms.p95": "latency_p95_ms", "latency_ms.mean": "latency_ms"}
"""Other spellings of what a gate can name (``latency_ms.p95<=2000``)."""


class Gate(BaseModel, frozen=True):
    """``metric op threshold``, e.g. ``{"metric": "order_correctness", "op": ">=", "threshold": 0.9}``
    or the short form ``"order_correctness>=0.9"``."""

    metric: str = Field(min_length=1, max_length=200)
    op: Operator
    threshold: float

    @model_validator(mode="before")
    @classmethod
    def _short_form(cls, data: Any) -> Any:
        if not isinstance(data, str):
            return data
        match = _GATE.match(data)
        if match is None:
            raise ValueError(f"{data!r} is not a gate: write METRIC>=X, METRIC>X, METRIC<=X or METRIC<X")
        return {
            "metric": _ALIASES.get(match.group("metric"), match.group("metric")),
            "op": match.group("op"),
            "threshold": float(match.group("value")),
        }

    @model_validator(mode="after")
    def _finite(self) -> Gate:
        if not math.isfinite(self.threshold):
            raise ValueError("a gate's threshold must be a finite number")
        return self

    def __str__(self) -> str:
        return f"{self.metric}{self.op}{self.threshold:g}"

    def check(self, value: float | None) -> GateResult:
        if value is None or math.isnan(value):
            return GateResult(
                gate=str(self), value=None, passed=False, reason=f"{self.metric} was not measured"
            )
        passed = {
            ">=": value >= self.threshold,
            ">": value > self.threshold,
            "<=": value <= self.threshold,
            "<": value < self.threshold,
        }[self.op]
        verb = "meets" if passed else "misses"
        return GateResult(
            gate=str(self), value=value, passed=passed, reason=f"{self.metric} = {value:.4g} {verb} {self}"
        )


class GateResult(BaseModel):
    gate: str
    value: float | None
    passed: bool
    reason: str


def check_gates(gates: list[Gate], means: dict[str, float | None]) -> list[GateResult]:
    """Each gate against the run's mean of its metric (missing: not measured, a failure)."""
    return [gate.check(means.get(gate.metric)) for gate in gates]
