"""The sampler process: FastAPI app whose lifespan runs the consumer of OpenTelemetry spans (every
application's traces, the drive-thru agent's included), the drift monitor and the retention sweep."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import timedelta

from fastapi import FastAPI
from fastapi.responses import JSONResponse
from nats.js import JetStreamContext
from sqlalchemy.ext.asyncio import AsyncEngine

from services.sampler.backlog import spans_backlog
from services.sampler.drift_monitor import DriftMonitor
from services.sampler.project_configs import ProjectConfigs
from services.sampler.retention import RetentionSweep
from services.sampler.settings import SamplerSettings
from services.sampler.span_consumer import SpanConsumer
from services.sampler.trace_handler import TraceHandler
from shared.db import make_engine, make_session_factory
from shared.db.health import postgres_health
from shared.evaluators import EvaluatorRegistry
from shared.evaluators.loading import process_registry
from shared.http.problem_details import install_problem_handlers
from shared.metrics import consumer_lag_probe, metrics_router, nats_probe, postgres_probe
from yardstick.api.nats_connection import ConnectionHealth, connect_nats
from yardstick.api.topology import SAMPLER_SPANS_CONSUMER


def create_app(settings: SamplerSettings, registry: EvaluatorRegistry | None = None) -> FastAPI:
    """The sampler's app; ``registry`` scores the sampled traces (this process's when None)."""
    registry = registry or process_registry()
    spans_state: dict[str, SpanConsumer] = {}
    jetstreams: dict[str, JetStreamContext] = {}
    consumer = (settings.topology.traffic_spans_stream, SAMPLER_SPANS_CONSUMER)
    nats_health = ConnectionHealth()
    engines: dict[str, AsyncEngine] = {}

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        engine = engines["db"] = app.state.engine = make_engine(settings.database_url)
        sessions = make_session_factory(engine)
        nc = await connect_nats(
            settings.nats_url,
            name="sampler",
            health=nats_health,
            reconnect_wait_s=settings.nats_reconnect_wait_s,
        )
        jetstreams["js"] = nc.jetstream()
        configs = ProjectConfigs(sessions, refresh_s=settings.sampler_config_refresh_s)
        spans = SpanConsumer(
            nc,
            settings.topology,
            TraceHandler(sessions, configs, registry),
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
            ahead_days=settings.trace_partitions_ahead_days,
        )
        monitor = DriftMonitor(
            sessions,
            nc.jetstream(),
            settings.topology,
            interval_s=settings.sampler_drift_interval_s,
            window=timedelta(seconds=settings.sampler_drift_window_s),
        )
        try:
            await spans.start()
            monitor.start()
            retention.start()
            spans_state["spans"] = spans
            yield
        finally:
            await retention.stop()
            await monitor.stop()
            await spans.stop()
            jetstreams.clear()
            await nc.close()
            app.state.engine = None
            await engine.dispose()

    app = FastAPI(title="Yardstick sampler", lifespan=lifespan)
    app.state.engine = None
    install_problem_handlers(app, "sampler")
    app.include_router(  # the spans' backlog (the coordinator reports every consumer's too)
        metrics_router(
            nats_probe(lambda: nats_health),
            postgres_probe(lambda: app.state.engine),
            consumer_lag_probe(lambda: jetstreams.get("js"), lambda: [consumer]),
        )
    )

    @app.get("/healthz", tags=["health"])
    async def healthz() -> JSONResponse:
        spans = spans_state.get("spans")
        pg = await postgres_health(engines["db"]) if "db" in engines else None
        ok = spans is not None and spans.running and nats_health.connected and pg is not None and pg.ok
        traces = dict(spans.handler.outcomes) if spans else {}
        js = jetstreams.get("js")
        backlog = await spans_backlog(js, *consumer) if js is not None and nats_health.connected else None
        body = {
            "ok": ok,
            "service": "sampler",
            "capped": spans.handler.capped if spans else 0,
            "traces": traces,
            "spans_held": spans.held if spans else 0,
            "spans_backlog": backlog.model_dump() if backlog is not None else None,
            "nats": nats_health.model_dump(mode="json"),
            "postgres": pg.model_dump(mode="json") if pg is not None else "starting",
        }
        return JSONResponse(body, status_code=200 if ok else 503)

    return app
