"""Messages between an eval worker and the task workers that serve a python target.

``<ns>.task.invoke.<name>`` (request/reply, queue group ``task-workers``): one item in, the
function's output (or the exception it raised) out, with the fingerprint of the code that ran it, or
a refusal when that code changed on disk since the worker started. ``<ns>.task.alive.<name>`` (same
group): any task worker serving ``name`` answers with a :class:`TaskWorkerInfo`; the coordinator asks
before it accepts an experiment on that target.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from yardstick.api.item_failure import ItemFailure

SCHEMA_VERSION = 1


class TaskInvokeRequest(BaseModel):
    """One (experiment, item, trial) attempt for a python target."""

    schema_version: int = SCHEMA_VERSION
    experiment_id: str = Field(description="The experiment the item belongs to")
    item_id: str = Field(description="The dataset item's id")
    trial: int = Field(default=0, ge=0, description="Repetition number of the item")
    attempt: int = Field(default=1, ge=1, description="JetStream delivery of the eval task (1 = first)")
    input: dict[str, Any] = Field(description="The item's input: the function's argument")
    expected_output: dict[str, Any] | None = Field(default=None, description="The item's reference")
    metadata: dict[str, Any] = Field(default_factory=dict, description="The item's metadata")
    timeout_s: float = Field(gt=0, description="The caller stops waiting after this long")


class TaskInvokeReply(BaseModel):
    """The function's output as a JSON object, or why it has none."""

    schema_version: int = SCHEMA_VERSION
    ok: bool = Field(description="False when the function raised or its output is not JSON")
    output: dict[str, Any] | None = Field(
        default=None, description="A dict return value as is; anything else as {'output': value}"
    )
    error: str | None = Field(default=None, description="'ErrorType: message' when ok is False")
    failure: ItemFailure | None = Field(
        default=None, description="When the function raised: its type, message and traceback (source target)"
    )
    worker_id: str = Field(default="", description="The task worker that ran the function")
    latency_ms: float | None = Field(default=None, description="Time spent in the function")
    refused: bool = Field(
        default=False,
        description="The worker did not run the function: its task code changed on disk since it started "
        "(error says which file); the call is to be retried, by a fresh worker",
    )
    code_fingerprint: str | None = Field(
        default=None,
        description="SHA-256 of the worker's task source files at start (yardstick/code_fingerprint.py)",
    )


class TaskWorkerInfo(BaseModel):
    """A task worker's answer on ``<ns>.task.alive.<name>``."""

    schema_version: int = SCHEMA_VERSION
    worker_id: str = Field(description="host-pid of the task worker process")
    name: str = Field(description="The python target it serves")
    concurrency: int = Field(ge=1, description="Calls it runs at once")
    in_flight: int = Field(ge=0, description="Calls it is running now")
    code_fingerprint: str | None = Field(default=None, description="As in TaskInvokeReply")
