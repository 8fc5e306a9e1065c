"""The evaluators an eval worker has loaded, gathered on request (``eval.evaluators``): what an
experiment's evaluators are checked against at submission, since that is what will score it."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

from yardstick.api.metric_spec import MetricSpec

SCHEMA_VERSION = 1


class EvaluatorDescriptor(BaseModel, frozen=True):
    """One loaded evaluator: its registry name, level and the JSON schema of its ``args``."""

    name: str = Field(description="Registry name")
    level: Literal["item", "run"] = Field(description="Item-level (workers) or run-level (coordinator)")
    version: str = Field(default="1", description="The evaluator's declared version")
    arguments_schema: dict[str, Any] = Field(
        default_factory=dict, description="JSON schema of its args (from its arguments model)"
    )
    metric_specs: dict[str, MetricSpec] = Field(
        default_factory=dict, description="What its metrics mean under its default arguments"
    )


class WorkerEvaluators(BaseModel):
    """One eval worker's answer on ``eval.evaluators``."""

    schema_version: int = SCHEMA_VERSION
    worker_id: str = Field(description="The worker that answered")
    evaluators: list[EvaluatorDescriptor] = Field(description="Every evaluator it has loaded")
    plugin_errors: list[str] = Field(
        default_factory=list, description="Plugins it could not load, as 'source: ErrorType: message'"
    )
