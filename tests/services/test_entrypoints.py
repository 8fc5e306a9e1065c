"""Every service that runs evaluators loads them before it serves (so before /healthz says ok).

Loaded lazily, the import (~1 s with LangChain) ran inside the first task and blocked the event
loop, so every first call of the first experiment after ``stack up`` looked seconds slower: an A/A
comparison then reported a latency "improvement" for an unchanged target."""

from __future__ import annotations

import importlib
from typing import Any

import pytest

from shared import service
from shared.evaluators import loading
from shared.llm.prices import PriceTableInvalid

pytestmark = pytest.mark.unit


@pytest.mark.parametrize(
    "module", ["services.evaluator.main", "services.sampler.main", "services.coordinator.main"]
)
def test_evaluators_are_loaded_before_serving(module: str, monkeypatch: pytest.MonkeyPatch) -> None:
    main = importlib.import_module(module)
    monkeypatch.setattr(loading, "_process_registry", None)
    seen: list[bool] = []

    async def record(*args: Any, **kwargs: Any) -> int:
        seen.append(loading._process_registry is not None)
        return 0

    monkeypatch.setattr(service, "serve", record)
    monkeypatch.setattr(service, "bind", lambda *a, **k: None)
    monkeypatch.setattr(service, "configure_logging", lambda *a, **k: None)
    monkeypatch.setenv("DATABASE_URL", "postgresql+asyncpg://u@/db?host=/tmp")
    monkeypatch.setenv("YARDSTICK_API_KEY_SECRET", "test-secret")
    monkeypatch.setenv("NATS_URL", "nats://127.0.0.1:1")
    with pytest.raises(SystemExit):
        main.main()
    assert seen == [True]


def test_the_coordinator_refuses_to_start_with_an_unreadable_price_table(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Any
) -> None:
    main = importlib.import_module("services.coordinator.main")
    served: list[bool] = []

    async def record(*args: Any, **kwargs: Any) -> int:
        served.append(True)
        return 0

    monkeypatch.setattr(service, "serve", record)
    monkeypatch.setattr(service, "bind", lambda *a, **k: None)
    monkeypatch.setattr(service, "configure_logging", lambda *a, **k: None)
    monkeypatch.setenv("DATABASE_URL", "postgresql+asyncpg://u@/db?host=/tmp")
    monkeypatch.setenv("YARDSTICK_API_KEY_SECRET", "test-secret")
    monkeypatch.setenv("NATS_URL", "nats://127.0.0.1:1")
    monkeypatch.setenv("LLM_PRICES", str(tmp_path / "missing.yaml"))
    with pytest.raises(PriceTableInvalid, match="LLM_PRICES"):  # the process exits 1 with it
        main.main()
    assert served == []
