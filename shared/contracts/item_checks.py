"""Checks an item carries itself: the expectations that differ from one item to the next.

A dataset item may hold, in ``expected_output.checks``, a list of :class:`ItemCheck`: each names a
built-in evaluator (``contains``, ``regex_match``, ``llm_rubric``, …) with the arguments this item
needs (its own expected text, its own pattern, its own rubric). The ``item_checks`` evaluator
(``shared.evaluators.item_checks``) runs them, so one experiment-level evaluator spec serves items
whose expectations all differ; the importers of promptfoo configs and OpenAI Evals files write them.

Rules:
- a check passes when its evaluator's value is at least ``threshold`` (1 when None: a 0/1 check);
- with ``values``, the evaluator runs once per value (given as its ``expected``) and the check
  passes when ``any`` (or ``all``) of them do;
- ``negate`` passes exactly when the check would not (a value that is not measured stays so);
- the result is reported under ``metric``; checks of one item sharing a metric are all required.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field

CHECKS_KEY = "checks"
"""Where an item's checks live in its ``expected_output``."""

CheckEvaluator = Literal[
    "exact_match",
    "contains",
    "regex_match",
    "json_valid",
    "json_schema",
    "string_similarity",
    "fuzzy_match",
    "llm_rubric",
]
"""The built-in evaluators a check may name."""

MetricName = Annotated[str, Field(pattern=r"^[A-Za-z][A-Za-z0-9_.@-]{0,63}$")]


class ItemCheck(BaseModel, frozen=True, extra="forbid"):
    """One expectation of one item (see the module docstring)."""

    evaluator: CheckEvaluator = Field(description="The built-in evaluator that checks it")
    args: dict[str, Any] = Field(default_factory=dict, description="That evaluator's arguments")
    values: list[Any] | None = Field(
        default=None, min_length=1, description="Run once per value, given as `expected`"
    )
    match: Literal["any", "all"] = Field(default="any", description="With `values`: how many must pass")
    threshold: float | None = Field(
        default=None, ge=0, le=1, description="Passes at a value >= this (None: 1, a 0/1 check)"
    )
    negate: bool = Field(default=False, description="Passes exactly when the check would not")
    metric: MetricName = Field(description="The score it is reported under")
    label: str = Field(default="", max_length=300, description="Where it came from, for the comment")
