"""What the statistics need from one finished experiment, built by the coordinator from Postgres."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

from yardstick.api.agent_messages import TokenUsage
from yardstick.api.comparison_report import ItemKey
from yardstick.api.evaluation import Evaluation
from yardstick.api.item_failure import CarriesFailure
from yardstick.api.item_outcome import ItemOutcome


class ScoredItem(CarriesFailure):
    """One terminal experiment item as the statistics read it: its scores by name (a number each),
    beside its outcome for reports (evaluations, output, latency, usage, the item's ``failure``).
    Built from an :class:`~yardstick.api.item_outcome.ItemOutcome` by :meth:`of`."""

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
    evaluations: list[Evaluation] = Field(
        default_factory=list,
        description="Optional full evaluator results (comments, details) for reports; scores stay canonical",
    )
    output: dict[str, Any] | None = Field(default=None, description="Optional target output for reports")

    @classmethod
    def of(
        cls,
        item_id: str,
        trial: int,
        status: Literal["ok", "error"],
        metadata: dict[str, Any],
        outcome: ItemOutcome,
    ) -> ScoredItem:
        """The item whose result is ``outcome`` (``status`` error: it failed or never finished)."""
        return cls(
            item_id=item_id,
            trial=trial,
            status=status,
            metadata=metadata,
            scores={e.name: e.numeric for e in outcome.scores},
            latency_ms=outcome.latency_ms,
            usage=outcome.usage,
            failure=outcome.failure,
            evaluations=outcome.scores,
            output=outcome.output,
        )

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
