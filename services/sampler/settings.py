"""Settings of the sampler service (environment variables, see field names)."""

from __future__ import annotations

from pydantic import Field
from pydantic_settings import SettingsConfigDict

from shared.settings import CommonSettings
from shared.traces import AssemblyPolicy


class SamplerSettings(CommonSettings):
    """``SAMPLER_CONFIG_REFRESH_S``, ``SAMPLER_DRIFT_INTERVAL_S`` … plus the common ones."""

    model_config = SettingsConfigDict(env_file=".env", extra="ignore")

    sampler_config_refresh_s: float = Field(
        default=2.0, gt=0, description="Re-read the sampling config from Postgres at most this often"
    )
    sampler_fetch_batch: int = Field(
        default=10,
        ge=1,
        le=1000,
        description="Span messages fetched per pull (each up to an export request of spans: a few leave the"
        " rest of a burst to the other samplers)",
    )
    sampler_fetch_timeout_s: float = Field(default=1.0, gt=0, description="Wait for the first turn")
    sampler_drift_interval_s: float = Field(
        default=30.0, gt=0, description="Run the drift check this often (seconds)"
    )
    sampler_drift_window_s: float = Field(
        default=3600.0, gt=0, description="Length of the recent window compared by the drift check"
    )
    sampler_trace_settle_s: float = Field(
        default=2.0, ge=0, description="After a trace's root span, wait this long for late spans"
    )
    sampler_trace_quiet_s: float = Field(
        default=30.0, gt=0, description="A trace without its root span is stored after this quiet"
    )
    sampler_max_open_traces: int = Field(default=10_000, ge=1, description="Traces assembled at once")
    sampler_max_spans_per_trace: int = Field(default=2_000, ge=1, description="Spans of one stored part")
    sampler_max_held_messages: int = Field(
        default=5_000, ge=1, le=19_000, description="Span messages held unacknowledged while assembling"
    )
    sampler_store_concurrency: int = Field(
        default=2,
        ge=1,
        le=64,
        description="Chunks of traces stored and scored at once (each one transaction)",
    )
    sampler_store_batch: int = Field(
        default=200, ge=1, le=2_000, description="Traces stored in one transaction (a chunk)"
    )
    traffic_retention_days: float = Field(
        default=30.0,
        gt=0,
        description="Stored traces (and sampled turns) older than this are deleted (TRAFFIC_RETENTION_DAYS)",
    )
    traffic_retention_batch: int = Field(
        default=500,
        ge=1,
        le=100_000,
        description="Traces deleted per transaction by the retention sweep (of a partly expired day)",
    )
    traffic_retention_interval_s: float = Field(
        default=300.0, gt=0, description="Run the retention sweep this often (seconds)"
    )
    trace_partitions_ahead_days: int = Field(
        default=7,
        ge=1,
        le=60,
        description="Day partitions of the trace tables kept created ahead of today by the retention sweep",
    )

    def assembly_policy(self) -> AssemblyPolicy:
        return AssemblyPolicy(
            settle_s=self.sampler_trace_settle_s,
            quiet_s=self.sampler_trace_quiet_s,
            max_open_traces=self.sampler_max_open_traces,
            max_spans_per_trace=self.sampler_max_spans_per_trace,
        )
