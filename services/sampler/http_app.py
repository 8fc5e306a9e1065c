"""The sampler process: FastAPI app whose lifespan runs the consumer loop and the drift monitor."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import timedelta

from fastapi import FastAPI
from fastapi.responses import JSONResponse

from services.sampler.consumer import SamplerConsumer
from services.sampler.drift_monitor import DriftMonitor
from services.sampler.settings import SamplerSettings
from services.sampler.turn_handler import TurnHandler
from shared.db import make_engine, make_session_factory
from shared.evaluators import EvaluatorRegistry
from shared.evaluators.loading import process_registry
from shared.messaging import ConnectionHealth, connect_nats


def create_app(settings: SamplerSettings, registry: EvaluatorRegistry | None = None) -> FastAPI:
    """The sampler's app; ``registry`` scores the sampled turns (this process's when None)."""
    registry = registry or process_registry()
    state: dict[str, SamplerConsumer] = {}
    nats_health = ConnectionHealth()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        engine = make_engine(settings.database_url)
        sessions = make_session_factory(engine)
        nc = await connect_nats(
            settings.nats_url,
            name="sampler",
            health=nats_health,
            reconnect_wait_s=settings.nats_reconnect_wait_s,
        )
        handler = TurnHandler(sessions, refresh_s=settings.sampler_config_refresh_s, registry=registry)
        consumer = SamplerConsumer(
            nc,
            settings.topology,
            handler,
            batch=settings.sampler_fetch_batch,
            fetch_timeout_s=settings.sampler_fetch_timeout_s,
        )
        monitor = DriftMonitor(
            sessions,
            nc.jetstream(),
            settings.topology,
            interval_s=settings.sampler_drift_interval_s,
            window=timedelta(seconds=settings.sampler_drift_window_s),
        )
        try:
            await consumer.start()
            monitor.start()
            state["consumer"] = consumer
            yield
        finally:
            await monitor.stop()
            await consumer.stop()
            await nc.close()
            await engine.dispose()

    app = FastAPI(title="Yardstick sampler", lifespan=lifespan)

    @app.get("/healthz", tags=["health"])
    async def healthz() -> JSONResponse:
        consumer = state.get("consumer")
        ok = consumer is not None and consumer.running and nats_health.connected
        outcomes = dict(consumer.handler.outcomes) if consumer else {}
        skipped = consumer.handler.capped if consumer else 0
        body = {
            "ok": ok,
            "service": "sampler",
            "outcomes": outcomes,
            "capped": skipped,
            "nats": nats_health.model_dump(mode="json"),
        }
        return JSONResponse(body, status_code=200 if ok else 503)

    return app
