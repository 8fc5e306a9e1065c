"""What a backfill was asked (stored with the job, ``trace_backfills.spec``): which application's
stored traces, which time window, which evaluators. Versioned like every stored document."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import BaseModel, Field

from yardstick.api.evaluation import EvaluatorSpec


class BackfillSpec(BaseModel):
    schema_version: Literal[1] = 1
    application: str | None = Field(
        default=None, description="Only this application (service.name); None: all"
    )
    since: datetime = Field(description="Traces started at or after this moment")
    until: datetime = Field(description="Traces started before this moment")
    evaluators: list[EvaluatorSpec] = Field(min_length=1, description="Evaluators to run on each trace")
    not_measured: dict[str, str] = Field(
        default_factory=dict, description="Per metric, the first reason it was not measured on a trace"
    )
