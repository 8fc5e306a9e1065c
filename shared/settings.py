"""Settings shared by every service; each service subclasses :class:`CommonSettings`.

A retired variable name that is still set stops start-up with a sentence naming the new one
(:mod:`shared.retired_settings`)."""

from __future__ import annotations

from functools import cached_property

from pydantic import Field, field_validator
from pydantic_settings import SettingsConfigDict

from shared.http.outbound_guard import OutboundPolicy, parse_networks
from shared.retired_settings import RefusesRetiredNames
from yardstick.api.topology import DEFAULT_NAMESPACE, Topology

DEFAULT_MAX_BODY_BYTES = 2**20  # services answering one request at a time; the coordinator allows more


class CommonSettings(RefusesRetiredNames):
    """Connection settings every service needs. Read from the environment (and ``.env``)."""

    model_config = SettingsConfigDict(env_file=".env", extra="ignore")

    nats_url: str = Field(
        default="nats://127.0.0.1:4222",
        description="NATS server URL, or the URLs of a cluster's nodes separated by commas",
    )
    nats_stream_replicas: int = Field(
        default=1, ge=1, le=5, description="Replicas of every JetStream stream and consumer (3 on a cluster)"
    )
    database_url: str = Field(
        description="SQLAlchemy URL, e.g. postgresql+asyncpg://user:pass@host/db (no default: holds a secret)"
    )
    nats_namespace: str = Field(default=DEFAULT_NAMESPACE, description="Prefix of every NATS name")
    nats_reconnect_wait_s: float = Field(
        default=1.0, gt=0, le=60, description="Between reconnect attempts (forever) while NATS is away"
    )
    log_level: str = Field(default="INFO")
    log_json: bool = Field(default=True, description="Structured JSON log lines")
    http_host: str = Field(default="127.0.0.1")
    http_port: int = Field(default=0, description="Port of the service's HTTP API / health endpoint")
    max_body_bytes: int = Field(
        default=DEFAULT_MAX_BODY_BYTES, ge=1024, description="Larger request bodies are refused (413) unread"
    )

    target_allowed_networks: str = Field(
        default="",
        description="Comma-separated CIDRs that http targets and upstream search may call although "
        "they are loopback, private, link-local or reserved (e.g. 127.0.0.0/8,::1/128); empty = none",
    )

    @field_validator("nats_url")
    @classmethod
    def _nats_servers(cls, value: str) -> str:
        from yardstick.api.nats_servers import nats_servers  # nats-py only when settings are read

        nats_servers(value)  # refuses a malformed entry at start-up, naming it
        return value

    @field_validator("target_allowed_networks")
    @classmethod
    def _networks(cls, value: str) -> str:
        parse_networks(value)  # refuses a malformed entry at start-up, naming it
        return value

    @property
    def outbound_policy(self) -> OutboundPolicy:
        """What ``TARGET_ALLOWED_NETWORKS`` allows, read anew each time (a few CIDRs)."""
        return OutboundPolicy.from_setting(self.target_allowed_networks)

    @cached_property
    def topology(self) -> Topology:
        return Topology(namespace=self.nats_namespace)
