"""Settings of the sampler service (environment variables, see field names)."""

from __future__ import annotations

from pydantic import Field
from pydantic_settings import SettingsConfigDict

from shared.settings import CommonSettings


class SamplerSettings(CommonSettings):
    """``SAMPLER_CONFIG_REFRESH_S``, ``SAMPLER_DRIFT_INTERVAL_S`` … plus the common ones."""

    model_config = SettingsConfigDict(env_file=".env", extra="ignore")

    sampler_config_refresh_s: float = Field(
        default=2.0, gt=0, description="Re-read the sampling config from Postgres at most this often"
    )
    sampler_fetch_batch: int = Field(default=50, ge=1, le=1000, description="Turns fetched per pull")
    sampler_fetch_timeout_s: float = Field(default=1.0, gt=0, description="Wait for the first turn")
    sampler_drift_interval_s: float = Field(
        default=30.0, gt=0, description="Run the drift check this often (seconds)"
    )
    sampler_drift_window_s: float = Field(
        default=3600.0, gt=0, description="Length of the recent window compared by the drift check"
    )
