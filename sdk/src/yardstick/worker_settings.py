"""Settings of one task worker process (environment variables named like the fields)."""

from __future__ import annotations

import os
import socket
from typing import Any

from pydantic import Field, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from yardstick.api.topology import DEFAULT_NAMESPACE, Topology
from yardstick.discovery import find_nats_stack


def default_worker_id() -> str:
    return f"{socket.gethostname()}-{os.getpid()}"


class TaskWorkerSettings(BaseSettings):
    """``NATS_URL``, ``NATS_NAMESPACE``, ``TASK_CONCURRENCY``, ``TASK_DRAIN_TIMEOUT_S``, ``WORKER_ID``,
    ``TASK_RELOAD``."""

    model_config = SettingsConfigDict(env_file=".env", extra="ignore")

    nats_url: str = Field(
        default="nats://127.0.0.1:4222",
        description="NATS server of the stack, or its cluster's nodes separated by commas",
    )
    nats_namespace: str = Field(default=DEFAULT_NAMESPACE, description="Prefix of every NATS name")
    worker_id: str = Field(default_factory=default_worker_id, description="Named in logs and replies")
    task_concurrency: int = Field(
        default=8, ge=1, le=1000, description="Calls of the function at once in this process"
    )
    task_drain_timeout_s: float = Field(
        default=60.0, gt=0, description="On shutdown, how long calls already running may still take"
    )
    nats_connect_deadline_s: float = Field(default=30.0, gt=0, description="Start-up wait for NATS")
    nats_reconnect_wait_s: float = Field(default=1.0, gt=0, le=60, description="Between reconnects")
    task_reload: bool = Field(
        default=False, description="Run by `yardstick worker --reload`: a code change restarts this process"
    )
    log_level: str = Field(default="INFO")
    log_json: bool = Field(default=False, description="Structured JSON log lines")

    @field_validator("nats_url")
    @classmethod
    def _nats_servers(cls, value: str) -> str:
        from yardstick.api.nats_servers import nats_servers  # nats-py only when a worker starts

        nats_servers(value)  # refuses a malformed entry at start-up, naming it
        return value

    @property
    def topology(self) -> Topology:
        return Topology(namespace=self.nats_namespace)

    @classmethod
    def discover(cls, **overrides: Any) -> TaskWorkerSettings:
        """The given and configured settings (arguments, the environment, ``./.env``); without a
        ``NATS_URL`` among them, those of the local stack started with ``yardstick stack up``, found from
        any folder (:mod:`yardstick.discovery`). :class:`~yardstick.errors.NotConfigured`, saying where
        it looked, when there is neither."""
        settings = cls(**overrides)
        if "nats_url" in settings.model_fields_set:
            return settings
        state = find_nats_stack()
        update: dict[str, Any] = {"nats_url": state.nats_url}
        if "nats_namespace" not in settings.model_fields_set:
            update["nats_namespace"] = state.namespace
        return settings.model_copy(update=update)
