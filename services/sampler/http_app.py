"""The sampler process: FastAPI app whose lifespan runs the consumers of the agent's turns and of
OpenTelemetry spans, the drift monitor and the retention sweep."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import timedelta

from fastapi import FastAPI
from fastapi.responses import JSONResponse

from services.sampler.consumer import SamplerConsumer
from services.sampler.drift_monitor import DriftMonitor
from services.sampler.retention import RetentionSweep
from services.sampler.settings import SamplerSettings
from services.sampler.span_consumer import SpanConsumer
from services.sampler.trace_handler import TraceHandler
from services.sampler.turn_handler import TurnHandler
from shared.db import make_engine, make_session_factory
from shared.evaluators import EvaluatorRegistry
from shared.evaluators.loading import process_registry
from shared.messaging import ConnectionHealth, connect_nats


def create_app(settings: SamplerSettings, registry: EvaluatorRegistry | None = None) -> FastAPI:
    """The sampler's app; ``registry`` scores the sampled turns (this process's when None)."""
    registry = registry or process_registry()
    state: dict[str, SamplerConsumer] = {}
    spans_state: dict[str, SpanConsumer] = {}
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
        spans = SpanConsumer(
            nc,
            settings.topology,
            TraceHandler(sessions, handler, registry),
            settings.assembly_policy(),
            batch=settings.sampler_fetch_batch,
            fetch_timeout_s=settings.sampler_fetch_timeout_s,
            max_held=settings.sampler_max_held_messages,
            store_concurrency=settings.sampler_store_concurrency,
            store_batch=settings.sampler_store_batch,
        )
        retention = RetentionSweep(
            sessions,
            retention=timedelta(days=settings.traffic_retention_days),
            batch=settings.traffic_retention_batch,
            interval_s=settings.traffic_retention_interval_s,
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
            await spans.start()
            monitor.start()
            retention.start()
            state["consumer"] = consumer
            spans_state["spans"] = spans
            yield
        finally:
            await retention.stop()
            await monitor.stop()
            await spans.stop()
            await consumer.stop()
            await nc.close()
            await engine.dispose()

    app = FastAPI(title="Yardstick sampler", lifespan=lifespan)

    @app.get("/healthz", tags=["health"])
    async def healthz() -> JSONResponse:
        consumer = state.get("consumer")
        spans = spans_state.get("spans")
        ok = (
            consumer is not None
            and consumer.running
            and spans is not None
            and spans.running
            and nats_health.connected
        )
        outcomes = dict(consumer.handler.outcomes) if consumer else {}
        traces = dict(spans.handler.outcomes) if spans else {}
        skipped = consumer.handler.capped if consumer else 0
        body = {
            "ok": ok,
            "service": "sampler",
            "outcomes": outcomes,
            "capped": skipped,
            "traces": traces,
            "spans_held": spans.held if spans else 0,
            "nats": nats_health.model_dump(mode="json"),
        }
        return JSONResponse(body, status_code=200 if ok else 503)

    return app
