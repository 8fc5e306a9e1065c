"""The JSON export of one experiment (``GET /experiments/{id}/export``): summary, category breakdown
and per-item test results (the trajectory-report shape), plus the aggregates and the scored run, as
one versioned model."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

from yardstick.api.item_failure import ItemFailure
from yardstick.api.run_aggregates import ExperimentAggregates
from yardstick.api.run_data import RunData


class EvaluationEntry(BaseModel):
    key: str
    score: float | None
    comment: str | None = None
    details: dict[str, Any] = Field(default_factory=dict)


class ReportItem(BaseModel):
    """One (item, trial) of the report: the trajectory-report row, with the item's typed failure."""

    name: str = Field(description="Item id")
    trial: int
    category: str
    description: str
    success: bool
    status: str = Field(description="'ok' or 'error'")
    error: str | None = Field(description="The failure's 'Type: message'")
    failure: ItemFailure | None = Field(description="Why the item has no result (target or platform)")
    execution_time: float | None = Field(description="Target latency in seconds")
    evaluations: list[EvaluationEntry]
    agent_response: str | None = Field(description="Target output as a JSON string")


class RunSummary(BaseModel):
    total_tests: int
    passed_tests: int
    failed_tests: int
    pass_rate: float
    avg_execution_time: float | None = Field(description="Mean latency in seconds of ok items")


class CategoryStats(BaseModel):
    count: int
    passed: int
    pass_rate: float


class ExperimentDocument(BaseModel):
    """An experiment's exported report: the trajectory-report shape (summary, category_breakdown,
    test_results) plus the aggregates and the scored run."""

    schema_version: Literal[1] = 1
    experiment_id: str
    name: str
    summary: RunSummary
    category_breakdown: dict[str, CategoryStats]
    test_results: list[ReportItem]
    aggregates: ExperimentAggregates
    run: RunData
