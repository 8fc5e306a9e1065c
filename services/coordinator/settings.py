"""Coordinator settings."""

from __future__ import annotations

from pydantic import Field, SecretStr

from shared.settings import CommonSettings


class CoordinatorSettings(CommonSettings):
    api_key_secret: SecretStr = Field(
        validation_alias="YARDSTICK_API_KEY_SECRET", description="HMAC secret for API key hashes (no default)"
    )
    http_port: int = 8700
    ui_session_hours: float = Field(default=12.0, gt=0, le=24 * 30, description="Web UI sign-in lifetime")
    ui_link_minutes: float = Field(
        default=5.0, gt=0, le=60, description="One-time sign-in links (`yardstick ui`) expire after this"
    )
    max_body_bytes: int = Field(
        default=64 * 2**20, ge=1024, description="Larger request bodies are refused (413) before reading"
    )
    max_tasks_per_experiment: int = Field(
        default=200_000, ge=1, description="items x repetitions above this are refused (422)"
    )
    result_batch_size: int = Field(default=200, ge=1, description="Results written per transaction, at most")
    write_gap_s: float = Field(
        default=0.05,
        ge=0,
        le=1,
        description="A busy coordinator writes results, and marks and reads ahead tasks, at most once per "
        "this many seconds each, gathering what comes meanwhile into one transaction (an idle one "
        "writes at once). 0: a transaction per wake-up",
    )
    dispatch_interval_s: float = Field(default=1.0, gt=0, description="Safety tick of the dispatcher")
    credit_read_ahead: int = Field(
        default=256,
        ge=0,
        description="Tasks of an experiment kept published beyond its concurrency C (at most C more) "
        "once the eval workers hold credits for it: a worker starts one the moment another ends. "
        "0 turns worker-held credits off (C published, refilled through the coordinator)",
    )
    judge_pairs_at_once: int = Field(
        default=4,
        ge=1,
        le=64,
        description="Pairs a judged comparison (llm_pairwise) asks its judge about at once, across all "
        "comparisons being judged (each pair is two requests, one after the other)",
    )
    judge_cache_prune_interval_s: float = Field(
        default=3600.0, gt=0, description="How often verdicts older than JUDGE_CACHE_TTL_DAYS are deleted"
    )
    stale_dispatch_s: float = Field(
        default=600.0, gt=0, description="Re-publish a task with no result after this long (lost task)"
    )
