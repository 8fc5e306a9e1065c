"""Settings of the ingest service (environment variables, see field names)."""

from __future__ import annotations

from pydantic import Field, SecretStr
from pydantic_settings import SettingsConfigDict

from services.ingest.span_conversion import SpanLimits
from shared.settings import CommonSettings


class IngestSettings(CommonSettings):
    """``INGEST_MAX_SPANS_PER_REQUEST``, ``INGEST_MAX_INFLIGHT_BYTES`` … plus the common ones."""

    model_config = SettingsConfigDict(env_file=".env", extra="ignore")

    api_key_secret: SecretStr = Field(
        validation_alias="YARDSTICK_API_KEY_SECRET", description="HMAC secret for API key hashes (no default)"
    )
    http_port: int = 8704
    ingest_grpc_port: int = Field(
        default=4317, ge=0, le=65535, description="OTLP/gRPC port (on HTTP_HOST); 0: any free port"
    )
    ingest_grpc_enabled: bool = Field(default=True, description="Serve OTLP over gRPC beside HTTP")
    max_body_bytes: int = Field(
        default=8 * 2**20, ge=1024, description="Larger request bodies (as sent, compressed or not): 413"
    )
    ingest_max_decompressed_bytes: int = Field(
        default=32 * 2**20, ge=1024, description="A gzip body that inflates past this is refused (413)"
    )
    ingest_max_spans_per_request: int = Field(
        default=10_000, ge=1, description="More spans in one export request: 413 (lower the batch size)"
    )
    ingest_max_attribute_value_bytes: int = Field(
        default=256 * 1024, ge=64, description="A span with a longer attribute value is rejected"
    )
    ingest_max_attributes: int = Field(
        default=256, ge=1, description="A span (or event, or resource) with more attributes is rejected"
    )
    ingest_max_events: int = Field(default=256, ge=0, description="A span with more events is rejected")
    ingest_max_inflight_requests: int = Field(
        default=64, ge=1, description="Export requests being handled at once; more: 429 with Retry-After"
    )
    ingest_max_inflight_bytes: int = Field(
        default=32 * 2**20, ge=1024, description="Bytes of the requests being handled; more: 429"
    )
    ingest_publish_timeout_s: float = Field(
        default=5.0, gt=0, description="Wait this long for JetStream's acknowledgement, then 503"
    )
    ingest_retry_after_s: int = Field(
        default=1, ge=1, le=60, description="Retry-After (seconds) of a 429 or 503 answer"
    )
    ingest_key_cache_s: float = Field(
        default=10.0, ge=0, description="A verified key is trusted this long without asking PostgreSQL"
    )

    @property
    def span_limits(self) -> SpanLimits:
        return SpanLimits(
            max_spans=self.ingest_max_spans_per_request,
            max_value_bytes=self.ingest_max_attribute_value_bytes,
            max_attributes=self.ingest_max_attributes,
            max_events=self.ingest_max_events,
        )
