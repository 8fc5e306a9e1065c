"""One audit row: a state change that is not an experiment's own progress, with who made it.

Written in the same transaction as the change it records, never updated or deleted by the
application (the table refuses both: migration 0009)."""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import Any

from pydantic import BaseModel, Field


class AuditAction(StrEnum):
    PROJECT_CREATE = "project.create"
    KEY_CREATE = "key.create"
    KEY_REVOKE = "key.revoke"
    DATASET_DELETE = "dataset.delete"
    DATASET_ACCEPT = "dataset.accept_version"
    EXPERIMENT_DELETE = "experiment.delete"
    COMPARISON_DELETE = "comparison.delete"
    PROMPT_LABEL_MOVE = "prompt.label_move"
    ONLINE_CONFIG_CHANGE = "online.config_change"
    TRAFFIC_PROMOTE = "traffic.promote"  # a sampled turn promoted (before traces): earlier rows name it
    TRACE_TO_DATASET = "traffic.trace_to_dataset"
    REVIEW_QUEUE_CREATE = "review.queue_create"
    REVIEW_QUEUE_DELETE = "review.queue_delete"
    REVIEW_LABEL = "review.label"
    REVIEW_ASSIGN = "review.assign"
    REVIEW_TO_DATASET = "review.to_dataset"


class Actor(BaseModel, frozen=True):
    """The key that made a change."""

    key_id: str | None = Field(description="None when made on the database directly (the CLI's key creation)")
    key_name: str = Field(description="The key's label")
    key_prefix: str = Field(description="The key's first characters")


class AuditChange(BaseModel):
    """What changed, when small enough to keep: the object before and after."""

    schema_version: int = 1
    before: dict[str, Any] | None = None
    after: dict[str, Any] | None = None


class AuditEntry(BaseModel):
    """``GET /audit``: one recorded change."""

    id: int
    at: datetime
    actor: Actor
    action: AuditAction
    object_kind: str = Field(
        description="project, key, dataset, experiment, comparison, prompt, online_config, sample"
    )
    object_id: str
    change: AuditChange
    project: str | None = Field(
        default=None, description="The project the change was made in; None: the instance (a project created)"
    )
