from __future__ import annotations

import os

import pytest

from services.evaluator.settings import WorkerSettings
from shared.messaging.streams import EVAL_TASK_MAX_DELIVER

pytestmark = pytest.mark.unit


def test_worker_needs_no_database_url_and_reads_its_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("DATABASE_URL", raising=False)
    monkeypatch.setenv("EVAL_CONCURRENCY", "3")
    monkeypatch.setenv("NATS_NAMESPACE", "abc")
    settings = WorkerSettings()
    assert settings.database_url is None
    assert settings.eval_concurrency == 3
    assert settings.eval_max_deliver == EVAL_TASK_MAX_DELIVER
    assert settings.topology.eval_task == "abc.eval.task"


def test_default_worker_id_is_hostname_and_pid(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("WORKER_ID", raising=False)
    assert WorkerSettings().worker_id.endswith(f"-{os.getpid()}")


def test_concurrency_must_be_positive() -> None:
    with pytest.raises(ValueError, match="eval_concurrency"):
        WorkerSettings(eval_concurrency=0)


def test_concurrency_is_bounded_at_ten_thousand(monkeypatch: pytest.MonkeyPatch) -> None:
    assert WorkerSettings().eval_concurrency == 1024  # two default workers hold >= 2,000 slots
    assert WorkerSettings(eval_concurrency=10_000).eval_concurrency == 10_000
    monkeypatch.setenv("EVAL_CONCURRENCY", "10001")
    with pytest.raises(ValueError, match=r"(?s)eval_concurrency.*less than or equal to 10000"):
        WorkerSettings()
