"""Live experiment progress events and drift alerts."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any, Literal, Protocol

from pydantic import BaseModel, Field

SCHEMA_VERSION = 1

EventKind = Literal["started", "progress", "completed", "failed", "cancelled", "budget_exhausted"]


class ExperimentCounts(Protocol):
    """An experiment's counters, wherever they are read from: its row, the collector's progress
    after a batch, an event, or the API's ``progress``."""

    @property
    def total(self) -> int: ...
    @property
    def done(self) -> int: ...
    @property
    def errors(self) -> int: ...
    @property
    def cache_hits(self) -> int: ...
    @property
    def throttled(self) -> int: ...
    @property
    def target_concurrency(self) -> int | None: ...


class ExperimentEvent(BaseModel):
    """Published on ``<ns>.experiment.events.<id>`` whenever an experiment makes progress."""

    schema_version: int = SCHEMA_VERSION
    experiment_id: str
    kind: EventKind
    status: str
    total: int = 0
    done: int = 0
    errors: int = 0
    in_flight: int = 0
    cache_hits: int = Field(default=0, description="Items scored from the output cache, target not called")
    throttled: int = Field(default=0, description="Times the target answered 429/503 (rate limited) so far")
    target_concurrency: int | None = Field(
        default=None, description="The workers' adaptive concurrency for the target, as last reported"
    )
    at: datetime = Field(default_factory=lambda: datetime.now(UTC))
    detail: dict[str, Any] = Field(default_factory=dict)


class DriftAlert(BaseModel):
    """Published on ``<ns>.alerts.drift`` (and stored) when online scores drop significantly."""

    schema_version: int = SCHEMA_VERSION
    alert_id: str
    evaluator: str
    model: str
    prompt_version: str
    application: str | None = Field(
        default=None, description="The traces' application (service.name); None for the agent's turns"
    )
    reference: Literal["offline", "previous_window"]
    reference_mean: float
    window_mean: float
    delta: float
    p_value: float
    window_start: datetime
    window_end: datetime
    created_at: datetime = Field(default_factory=lambda: datetime.now(UTC))
