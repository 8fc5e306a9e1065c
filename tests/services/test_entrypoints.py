"""Every service that runs evaluators loads them before it serves (so before /healthz says ok).

Loaded lazily, the import (~1 s with LangChain) ran inside the first task and blocked the event
loop, so every first call of the first experiment after ``stack up`` looked seconds slower: an A/A
comparison then reported a latency "improvement" for an unchanged target."""

from __future__ import annotations

import contextlib
import importlib
from typing import Any

import pytest

from shared.evaluators import loading

pytestmark = pytest.mark.unit


@pytest.mark.parametrize(
    ("module", "serve"),
    [
        ("services.evaluator.main", "asyncio.run"),
        ("services.sampler.main", "uvicorn.run"),
        ("services.coordinator.main", "uvicorn.run"),
    ],
)
def test_evaluators_are_loaded_before_serving(
    module: str, serve: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    main = importlib.import_module(module)
    monkeypatch.setattr(loading, "_process_registry", None)
    seen: list[bool] = []

    def record(*args: Any, **kwargs: Any) -> int:
        for arg in args:  # asyncio.run gets a coroutine: close it unrun
            if hasattr(arg, "close"):
                arg.close()
        seen.append(loading._process_registry is not None)
        return 0

    owner, name = serve.split(".")
    monkeypatch.setattr(getattr(main, owner), name, record)
    monkeypatch.setattr(main, "configure_logging", lambda *a, **k: None)
    monkeypatch.setattr(main, "create_app", lambda *a, **k: None, raising=False)
    monkeypatch.setenv("DATABASE_URL", "postgresql+asyncpg://u@/db?host=/tmp")
    monkeypatch.setenv("YARDSTICK_API_KEY_SECRET", "test-secret")
    monkeypatch.setenv("NATS_URL", "nats://127.0.0.1:1")
    with pytest.raises(SystemExit) if module == "services.evaluator.main" else contextlib.nullcontext():
        main.main()
    assert seen == [True]
