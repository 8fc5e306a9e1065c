"""The item table of an experiment page: one row per item and trial, one column per metric."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel

from services.coordinator.ui.views.item import Verdict, verdict
from shared.analysis import Outcome, PassPolicy
from yardstick.api.experiments import ExperimentItemOut
from yardstick.api.run_data import ScoredItem


class Cell(BaseModel):
    value: float | None
    verdict: Verdict


class ItemRow(BaseModel):
    item_id: str
    trial: int
    status: str
    latency_ms: float | None
    error: str | None
    summary: str
    cells: dict[str, Cell]
    outcome: Outcome | Literal["pending"]
    reasons: list[str]


def summary(item: ExperimentItemOut, width: int = 90) -> str:
    """What the item asks, in one line: the utterance, query or question if there is one."""
    for key in ("customer_utterance", "query", "question", "text", "prompt"):
        value = item.input.get(key)
        if isinstance(value, str) and value:
            return value if len(value) <= width else value[: width - 1] + "…"
    text = str(item.input)
    return text if len(text) <= width else text[: width - 1] + "…"


def scored_item(item: ExperimentItemOut) -> ScoredItem:
    """The item as the pass rule reads it (an item still running counts as not ok)."""
    return ScoredItem(
        item_id=item.item_id,
        trial=item.trial,
        status="ok" if item.status == "ok" else "error",
        metadata=item.metadata,
        scores={s.name: s.value for s in item.scores},
        latency_ms=item.latency_ms,
        failure=item.failure,
    )


def item_row(item: ExperimentItemOut, policy: PassPolicy) -> ItemRow:
    cells = {
        s.name: Cell(value=s.value, verdict=verdict(policy, s.name, s.value, s.error)) for s in item.scores
    }
    scored = scored_item(item)
    return ItemRow(
        item_id=item.item_id,
        trial=item.trial,
        status=item.status,
        latency_ms=item.latency_ms,
        error=item.error,
        summary=summary(item),
        cells=cells,
        outcome="pending" if item.status in ("pending", "dispatched") else policy.outcome(scored),
        reasons=policy.reasons(scored),
    )
