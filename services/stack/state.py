"""The launcher's state file (``.yardstick/stack.json``): what it started, where, with which pids; and
the per-user record of where it runs (:class:`yardstick.api.stack_location.StackLocation`, the SDK's model:
the CLI, the SDK and ``yardstick worker`` read it from any folder)."""

from __future__ import annotations

import os
from datetime import datetime
from pathlib import Path

import psutil
from pydantic import BaseModel, Field

from services.stack.nodes import NatsNode, PgNode
from yardstick.api.stack_location import (
    StackLocation,
    location_of_state,
    remove_user_location,
    user_state_file,
    write_user_location,
)

DEFAULT_STATE_DIR = Path(os.environ.get("YARDSTICK_HOME", ".yardstick"))
LOCAL_ALLOWED_NETWORKS = "127.0.0.0/8,::1/128"
"""``TARGET_ALLOWED_NETWORKS`` of the services `stack up` starts: targets on this machine (loopback)
may be called, for local development. The caller's environment may set its own (empty: nothing
private allowed). Deployments (docker-compose, k8s) leave it unset: nothing private allowed."""


SERVER_NAMES = ("nats", "postgres")


class ProcessRecord(BaseModel):
    name: str
    pid: int
    port: int | None = None
    log: str
    create_time: float = Field(description="psutil create_time, guards against pid reuse")
    role: str | None = Field(
        default=None, description="Of a server node: leader/follower (NATS), primary/standby (PostgreSQL)"
    )
    data_dir: str | None = Field(default=None, description="Of a server node: its store / data folder")

    @property
    def is_server(self) -> bool:
        """NATS or PostgreSQL (``nats``, ``nats-2``, ``postgres-1`` …), not a service."""
        return self.name.split("-", 1)[0] in SERVER_NAMES

    def alive(self) -> bool:
        try:
            proc = psutil.Process(self.pid)
            alive: bool = (
                proc.is_running()
                and abs(proc.create_time() - self.create_time) < 1.0
                and (proc.status() != psutil.STATUS_ZOMBIE)
            )
            return alive
        except psutil.Error:
            return False


class StackState(BaseModel):
    state_dir: str
    nats_url: str
    database_url: str
    namespace: str
    started_at: datetime
    own_nats: bool
    own_postgres: bool
    postgres_data: str | None = None
    processes: list[ProcessRecord] = Field(default_factory=list)
    api_url: str | None = None
    api_key: str | None = Field(default=None, description="The CLI's key (file is mode 0600)")
    agent_url: str | None = None
    otlp_url: str | None = Field(
        default=None,
        description="The ingest service: OTEL_EXPORTER_OTLP_ENDPOINT of an instrumented app (+ /v1/traces)",
    )
    otlp_grpc_url: str | None = Field(
        default=None,
        description="The ingest's OTLP/gRPC receiver (OTEL_EXPORTER_OTLP_PROTOCOL=grpc)",
    )
    agent_ingest_key: str | None = Field(
        default=None, description="The drive-thru agent's ingest key: it reports its chat turns as traces"
    )
    target_allowed_networks: str = Field(
        default=LOCAL_ALLOWED_NETWORKS, description="TARGET_ALLOWED_NETWORKS given to the services"
    )
    ha: bool = Field(default=False, description="Started with --ha: a NATS cluster, a PostgreSQL standby")
    stream_replicas: int = Field(default=1, description="NATS_STREAM_REPLICAS given to the services")
    nats_nodes: list[NatsNode] = Field(default_factory=list, description="The JetStream cluster (--ha)")
    pg_nodes: list[PgNode] = Field(default_factory=list, description="Primary and standby (--ha)")

    @staticmethod
    def path(state_dir: Path) -> Path:
        return state_dir / "stack.json"

    @classmethod
    def load(cls, state_dir: Path = DEFAULT_STATE_DIR) -> StackState | None:
        path = cls.path(state_dir)
        if not path.exists():
            return None
        return cls.model_validate_json(path.read_text())

    def save(self) -> None:
        path = self.path(Path(self.state_dir))
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        tmp.write_text(self.model_dump_json(indent=2))
        tmp.chmod(0o600)
        tmp.replace(path)

    def remove(self) -> None:
        self.path(Path(self.state_dir)).unlink(missing_ok=True)

    def location(self) -> StackLocation:
        """Where it runs, as the per-user file records it: the coordinator's pid says it still does."""
        recorded = location_of_state(self.model_dump_json())
        return recorded.model_copy(update={"state_dir": str(Path(self.state_dir).resolve())})

    def publish_location(self) -> None:
        """Write the per-user file (none when ``YARDSTICK_HOME`` is set: that folder is then the way in)."""
        if (path := user_state_file()) is not None:
            write_user_location(self.location(), path)

    def withdraw_location(self) -> None:
        """Remove the per-user file if it records this stack."""
        if (path := user_state_file()) is not None:
            remove_user_location(path, self.state_dir)

    def record(self, name: str) -> ProcessRecord | None:
        return next((p for p in self.processes if p.name == name), None)

    def alive_processes(self) -> list[ProcessRecord]:
        return [p for p in self.processes if p.alive()]
