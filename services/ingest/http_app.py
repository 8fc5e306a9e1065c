"""The ingest process: the OTLP receivers (HTTP, and gRPC beside it), their NATS connection and key
store, and /healthz. Every error answer is problem details (``install_problem_handlers``): a path
the ingest does not serve (404) names the ones it does, a method it does not take (405) says which
one it does."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI
from fastapi.responses import JSONResponse

from services.ingest.admission import Admission
from services.ingest.errors import IngestError
from services.ingest.grpc_server import GrpcReceiver
from services.ingest.key_check import KeyChecker
from services.ingest.receiver import EXPORT_PATHS, TraceReceiver, receiver_router
from services.ingest.settings import IngestSettings
from services.ingest.span_publisher import SpanPublisher
from shared.db import make_engine, make_session_factory
from shared.db.health import postgres_health
from shared.http.problem_details import ProblemError, install_problem_handlers
from shared.metrics import metrics_router, nats_probe, postgres_probe
from yardstick.api.nats_connection import ConnectionHealth, connect_nats

log = logging.getLogger(__name__)


def create_app(settings: IngestSettings) -> FastAPI:
    nats_health = ConnectionHealth()
    engine = make_engine(settings.database_url)
    state: dict[str, TraceReceiver] = {}
    grpc_state: dict[str, GrpcReceiver] = {}

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        nc = await connect_nats(
            settings.nats_url,
            name="ingest",
            health=nats_health,
            reconnect_wait_s=settings.nats_reconnect_wait_s,
        )
        publisher = SpanPublisher(nc, settings.topology, nats_health, settings.ingest_publish_timeout_s)
        keys = KeyChecker(
            make_session_factory(engine),
            settings.api_key_secret.get_secret_value(),
            cache_s=settings.ingest_key_cache_s,
        )
        admission = Admission(settings.ingest_max_inflight_requests, settings.ingest_max_inflight_bytes)
        receiver = TraceReceiver(settings, keys, publisher, admission)
        app.include_router(receiver_router(receiver))
        state["receiver"] = receiver
        if settings.ingest_grpc_enabled:
            grpc_receiver = GrpcReceiver(receiver, settings)
            await grpc_receiver.start()
            grpc_state["grpc"] = grpc_receiver
        try:
            yield
        finally:
            if (served := grpc_state.pop("grpc", None)) is not None:
                await served.stop()
            if nc.is_connected:
                await nc.drain()  # acknowledged publishes are already stored; drain flushes the rest
            else:
                await nc.close()
            await engine.dispose()

    app = FastAPI(title="Yardstick ingest (OTLP traces and GenAI events)", lifespan=lifespan)

    def refused(exc: ProblemError) -> dict[str, str]:
        """Counts and logs a refused export; a retryable one says when to send it again."""
        if not isinstance(exc, IngestError):
            return {}
        if (receiver := state.get("receiver")) is not None:
            receiver.refused(exc)
        level = logging.DEBUG if exc.status_code == 429 else logging.WARNING if exc.retry else logging.INFO
        log.log(
            level,
            "export refused",
            extra={"status": exc.status_code, "error": type(exc).__name__, "detail": exc.message},
        )
        return {"Retry-After": str(settings.ingest_retry_after_s)} if exc.retry else {}

    paths = ", ".join(f"POST {path}" for path in EXPORT_PATHS)
    install_problem_handlers(
        app,
        "ingest",
        unknown_path_hint=(
            f"the ingest takes {paths} (OTEL_EXPORTER_OTLP_ENDPOINT is the base URL, without /v1/traces; "
            "a Langfuse SDK's base URL is the same URL) and GET /healthz, GET /metrics"
        ),
        on_problem=refused,
    )

    @app.get("/healthz", tags=["health"])
    async def healthz() -> JSONResponse:
        receiver = state.get("receiver")
        pg = await postgres_health(engine)
        ok = receiver is not None and nats_health.connected and pg.ok
        body = {
            "ok": ok,
            "service": "ingest",
            "nats": nats_health.model_dump(mode="json"),
            "postgres": {"ok": pg.ok} | pg.model_dump(mode="json"),
            "spans_accepted": receiver.spans_accepted if receiver else 0,
            "spans_rejected": receiver.spans_rejected if receiver else 0,
            "duplicates": receiver.publisher.duplicates if receiver else 0,
            "answers": {str(k): v for k, v in sorted(receiver.answers.items())} if receiver else {},
            "in_flight": {"requests": receiver.admission.requests, "bytes": receiver.admission.bytes}
            if receiver
            else {},
            "grpc_port": served.port if (served := grpc_state.get("grpc")) is not None else None,
        }
        return JSONResponse(body, status_code=200 if ok else 503)

    app.include_router(metrics_router(nats_probe(lambda: nats_health), postgres_probe(lambda: engine)))
    return app
