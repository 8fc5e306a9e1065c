"""The server nodes of an HA stack (``stack up --ha``), as stack.json records them: light models
that the CLI can read without importing nats-py or psycopg."""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, Field


class NatsNode(BaseModel):
    """One node of the JetStream cluster."""

    name: str = Field(description="server_name: nats-1, nats-2, nats-3")
    port: int = Field(description="Client port on 127.0.0.1")
    cluster_port: int = Field(description="Route port on 127.0.0.1")
    store_dir: str
    log: str

    @property
    def url(self) -> str:
        return f"nats://127.0.0.1:{self.port}"


class PgNode(BaseModel):
    """One PostgreSQL server of the primary/standby pair."""

    name: str = Field(description="postgres-1 (started as primary), postgres-2 (standby)")
    port: int
    data_dir: str
    log: str

    def pid(self) -> int | None:
        """The postmaster's pid (first line of postmaster.pid), None when it is not running."""
        try:
            return int((Path(self.data_dir) / "postmaster.pid").read_text().split("\n", 1)[0])
        except (FileNotFoundError, ValueError):
            return None

    def conninfo(self, database: str = "postgres") -> str:
        return f"host=127.0.0.1 port={self.port} user=postgres dbname={database} connect_timeout=3"
