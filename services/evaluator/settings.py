"""Settings of one eval worker process (environment variables, see field names)."""

from __future__ import annotations

import os
import socket

from pydantic import Field
from pydantic_settings import SettingsConfigDict

from shared.messaging.election import ELECTION_BUDGET_S
from shared.messaging.streams import EVAL_TASK_MAX_DELIVER
from shared.settings import CommonSettings

DEFAULT_EVAL_CONCURRENCY = 1024
MAX_EVAL_CONCURRENCY = 10_000  # one process's sockets and coroutines; past this, run more workers


def default_worker_id() -> str:
    return f"{socket.gethostname()}-{os.getpid()}"


class WorkerSettings(CommonSettings):
    """``EVAL_CONCURRENCY``, ``EVAL_MAX_DELIVER``, ``EVAL_BACKOFF_BASE_S`` … plus the common ones."""

    model_config = SettingsConfigDict(env_file=".env", extra="ignore")

    # The worker touches Postgres only for the judge cache, so it must start without DATABASE_URL;
    # narrowing the base class's required ``str`` to an optional one is deliberate.
    database_url: str | None = Field(  # type: ignore[assignment]
        default=None,
        description="Only for the judge cache (judge verdicts reused across runs); without it every "
        "judge asks its model",
    )
    worker_id: str = Field(default_factory=default_worker_id, description="Recorded in every result")
    eval_concurrency: int = Field(
        default=DEFAULT_EVAL_CONCURRENCY,
        ge=1,
        le=MAX_EVAL_CONCURRENCY,
        description="Tasks in flight per worker process: calls wait on targets, so a thousand are "
        "cheap (evaluators run in a thread, off the event loop); the default stack's two workers "
        "hold 2,048 together",
    )
    eval_park_limit: int = Field(
        default=64,
        ge=1,
        description="While the coordinator grants credits: tasks fetched beyond those this worker may "
        "run, held (lease kept) to start the moment a task of their experiment ends",
    )
    eval_max_deliver: int = Field(
        default=EVAL_TASK_MAX_DELIVER,
        ge=1,
        description="Delivery on which a transient failure becomes an error result "
        "(capped by the consumer's own max_deliver)",
    )
    eval_backoff_base_s: float = Field(default=0.5, gt=0, description="Nack delay after the first attempt")
    eval_backoff_max_s: float = Field(default=30.0, gt=0, description="Cap of the nack delay")
    eval_throttle_max_wait_s: float = Field(
        default=540.0,
        gt=0,
        description="Longest a task waits in all for a rate-limited target (429/503 + Retry-After) "
        "before it is recorded as an error; waiting is not a failed delivery. Keep it under the "
        "coordinator's STALE_DISPATCH_S (600 s), which re-publishes a task with no result by then",
    )
    eval_fetch_timeout_s: float = Field(
        default=1.0,
        gt=0,
        description="Longest wait of one fetch; also bounds how fast SIGTERM stops fetching",
    )
    eval_drain_timeout_s: float = Field(
        default=300.0, gt=0, description="On shutdown, how long in-flight tasks may still run"
    )
    nats_connect_deadline_s: float = Field(
        default=30.0, gt=0, description="How long start-up waits for NATS before the process exits 1"
    )
    eval_publish_budget_s: float = Field(
        default=ELECTION_BUDGET_S,
        gt=0,
        description="How long one result's publish is retried (a stream leader election takes up to ~8 s)",
    )
