"""What the statistics need from one finished experiment, built by the coordinator from Postgres."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

from yardstick.api.agent_messages import TokenUsage
from yardstick.api.comparison_report import ItemKey
from yardstick.api.evaluation import Evaluation


class ScoredItem(BaseModel):
    """One terminal experiment item with its per-evaluator scores."""

    item_id: str = Field(description="Dataset item id")
    trial: int = Field(default=0, description="Trial number (0-based) when items run several times")
    status: Literal["ok", "error"] = Field(description="'error' when the target call failed for good")
    metadata: dict[str, Any] = Field(
        default_factory=dict, description="Dataset item metadata: category, difficulty, query_type, …"
    )
    scores: dict[str, float | None] = Field(
        default_factory=dict,
        description="Evaluator name → score (bools arrive as 0/1); None when the evaluator failed",
    )
    latency_ms: float | None = Field(default=None, description="Target call latency in milliseconds")
    usage: TokenUsage | None = Field(default=None, description="Token usage when the target reported it")
    error: str | None = Field(default=None, description="Why the item failed, when status is 'error'")
    evaluations: list[Evaluation] = Field(
        default_factory=list,
        description="Optional full evaluator results (comments, details) for reports; scores stay canonical",
    )
    output: dict[str, Any] | None = Field(default=None, description="Optional target output for reports")

    @property
    def key(self) -> ItemKey:
        return ItemKey(item_id=self.item_id, trial=self.trial)


class RunData(BaseModel):
    """One experiment: its items and its run-level evaluator results."""

    experiment_id: str
    name: str
    items: list[ScoredItem] = Field(default_factory=list)
    run_scores: list[Evaluation] = Field(default_factory=list, description="Run-level evaluator results")
    code_fingerprints: list[str] = Field(
        default_factory=list, description="Python targets: the task code fingerprints of its outputs"
    )
