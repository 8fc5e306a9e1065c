"""Per-application sampling of traces: an application's own rate, filters, cap and evaluators,
each defaulting to its project's.

An application is a trace's ``service.name``. What is not set for it is the project's (rate, cap,
evaluators; the project's ``model`` filter). Trace filters are about what a trace has (a model, an
error, a tool); a trace is eligible only if it matches every filter that is set.
"""

from __future__ import annotations

from pydantic import BaseModel, Field

from yardstick.api.evaluation import EvaluatorSpec


class TraceFilters(BaseModel):
    """A trace is eligible only if it matches every filter that is set."""

    model: str | None = Field(default=None, description="Only traces that called this model")
    error: bool | None = Field(default=None, description="Only failed (True) / clean (False) traces")
    tool: str | None = Field(default=None, description="Only traces that called this tool")


class ApplicationSampling(BaseModel):
    """One application's overrides; None (or absent) means the project's setting."""

    rate: float | None = Field(default=None, ge=0.0, le=1.0, description="Fraction of conversations sampled")
    filters: TraceFilters | None = Field(default=None, description="None: the project's model filter")
    cap_per_minute: int | None = Field(
        default=None, ge=1, le=1_000_000, description="At most this many sampled traces per minute"
    )
    evaluators: list[EvaluatorSpec] | None = Field(
        default=None, min_length=1, description="Reference-free evaluators; None: the project's"
    )


class EffectiveSampling(BaseModel, frozen=True):
    """What the sampler applies to one application's traces, the defaults resolved."""

    rate: float
    filters: TraceFilters
    cap_per_minute: int | None
    evaluators: list[EvaluatorSpec]
