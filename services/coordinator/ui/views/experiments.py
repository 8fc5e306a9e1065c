"""The experiments list: one row per experiment, with its headline numbers."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import BaseModel

from yardstick.api.experiment_status import ExperimentStatus
from yardstick.api.experiments import ExperimentOut
from yardstick.api.run_aggregates import ExperimentAggregates

HEADLINE_METRICS = 3


class Headline(BaseModel):
    name: str
    mean: float | None


class ExperimentRow(BaseModel):
    id: str
    name: str
    dataset: str
    dataset_version: int
    target: str
    status: ExperimentStatus
    done: int
    total: int
    errors: int
    percent_done: float
    pass_rate: float | None
    headlines: list[Headline]
    regression: bool | None
    created_at: datetime


def target_label(target: Any) -> str:
    """'agent · offline', 'agent · mistral-small · prompt@staging', 'search · balanced', 'http · URL',
    'python · my-app'."""
    kind = str(getattr(target, "kind", "?"))
    parts = [kind]
    model = getattr(target, "model", None)
    if model is not None:
        parts.append(str(getattr(model, "name", None) or getattr(model, "provider", "")))
    for attr in ("name", "prompt", "mode"):
        value = getattr(target, attr, None)
        if value:
            parts.append(str(value))
    url = getattr(target, "url", None)
    if url:
        parts.append(str(url))
    if getattr(target, "degrade", 0):
        parts.append(f"degrade {target.degrade:g}")
    return " · ".join(parts)


def headline_metrics(
    aggregates: ExperimentAggregates | None, limit: int = HEADLINE_METRICS
) -> list[Headline]:
    """The gating metrics first (those with a pass criterion), then the rest, in stored order."""
    if aggregates is None:
        return []
    names = list(aggregates.metrics)
    gating = [n for n in names if n in aggregates.pass_criteria]
    ordered = gating + [n for n in names if n not in gating]
    return [Headline(name=n, mean=aggregates.metrics[n].mean) for n in ordered[:limit]]


def experiment_row(experiment: ExperimentOut) -> ExperimentRow:
    progress = experiment.progress
    aggregates = experiment.aggregates
    return ExperimentRow(
        id=experiment.id,
        name=experiment.name,
        dataset=experiment.dataset,
        dataset_version=experiment.dataset_version,
        target=target_label(experiment.target),
        status=experiment.status,
        done=progress.done,
        total=progress.total,
        errors=progress.errors,
        percent_done=100.0 * progress.done / progress.total if progress.total else 100.0,
        pass_rate=aggregates.pass_rate if aggregates else None,
        headlines=headline_metrics(aggregates),
        regression=experiment.regression,
        created_at=experiment.created_at,
    )


class Pager(BaseModel):
    """Page numbers are 1-based; ``first``/``last`` are the 1-based positions shown."""

    page: int
    per_page: int
    total: int

    @property
    def pages(self) -> int:
        return max(1, -(-self.total // self.per_page))

    @property
    def offset(self) -> int:
        return (self.page - 1) * self.per_page

    @property
    def first(self) -> int:
        return 0 if self.total == 0 else self.offset + 1

    @property
    def last(self) -> int:
        return min(self.total, self.offset + self.per_page)

    @property
    def has_previous(self) -> bool:
        return self.page > 1

    @property
    def has_next(self) -> bool:
        return self.page < self.pages
