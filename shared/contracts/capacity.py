"""Eval workers' task slots, gathered on request: what an experiment's concurrency can really get."""

from __future__ import annotations

from pydantic import BaseModel, Field


class WorkerCapacity(BaseModel):
    """One eval worker's answer on ``eval.capacity``."""

    worker_id: str
    concurrency: int = Field(ge=0, description="Tasks it runs at once (EVAL_CONCURRENCY)")
    in_flight: int = Field(ge=0, description="Tasks it is running now")
    draining: bool = Field(
        default=False, description="It is shutting down: it fetches nothing more and gets no credits"
    )
