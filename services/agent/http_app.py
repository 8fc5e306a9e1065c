"""The agent's process: the FastAPI chat API whose lifespan starts the NATS broker (``agent.invoke``
endpoint), the Postgres checkpointer and the OpenTelemetry exporter of the chat turns' traces."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from fastapi import FastAPI, Response, status
from opentelemetry.sdk.trace.export import SpanExporter

from services.agent.chat_api import router
from services.agent.chat_models import ModelFactory
from services.agent.checkpointer import postgres_checkpointer
from services.agent.conversation_lock import conversation_locks
from services.agent.conversations import ConversationService
from services.agent.graph import compile_graph
from services.agent.invoke_endpoint import register_conversation_handler, register_invoke_handler
from services.agent.runtime import AgentRuntime
from services.agent.settings import AgentSettings
from services.agent.telemetry import AgentTelemetry
from shared.db.health import postgres_health
from shared.db.session import make_engine
from shared.http.input_guard import InputGuard
from shared.http.problem_details import install_problem_handlers
from shared.messaging.faststream_broker import new_broker, start_serving
from shared.metrics import metrics_router, nats_probe, postgres_probe
from yardstick.api.nats_connection import ConnectionHealth

log = logging.getLogger(__name__)


def create_app(
    settings: AgentSettings, models: ModelFactory | None = None, span_exporter: SpanExporter | None = None
) -> FastAPI:
    """``span_exporter`` replaces the OTLP exporter the settings name (tests keep spans in memory)."""
    runtime = AgentRuntime.from_settings(settings, models)
    nats_health = ConnectionHealth()
    broker = new_broker(
        settings.nats_url, "services.agent.nats", nats_health, "agent", settings.nats_reconnect_wait_s
    )
    register_invoke_handler(broker, runtime)
    register_conversation_handler(broker, runtime)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        # A turn waits for an earlier one of its conversation at most as long as that one can run.
        lock_wait_s = settings.turn_timeout_s + 5
        async with (
            postgres_checkpointer(settings.database_url) as saver,
            conversation_locks(settings.database_url, lock_wait_s, settings.chat_concurrent_turns) as locks,
        ):
            await start_serving(broker, nats_health)
            engine = app.state.engine = make_engine(settings.database_url, pool_size=1)  # health, metrics
            telemetry = app.state.telemetry = AgentTelemetry.from_settings(settings, span_exporter)
            try:
                graph = compile_graph(saver)
                app.state.conversations = ConversationService(graph, runtime, telemetry, locks)
                yield
            finally:
                app.state.conversations = None
                app.state.engine = None
                await telemetry.aclose()  # the last turns' traces are exported before the process ends
                try:
                    await broker.stop()
                except Exception as exc:  # NATS away at shutdown: nothing is left to flush there
                    log.warning("closing the NATS connection failed: %s", exc)
                await engine.dispose()

    app = FastAPI(title="Yardstick drive-thru agent", lifespan=lifespan)
    app.add_middleware(InputGuard, max_body_bytes=settings.max_body_bytes)
    app.state.conversations = None
    app.state.engine = None
    app.state.telemetry = None
    app.include_router(router)
    app.include_router(
        metrics_router(nats_probe(lambda: nats_health), postgres_probe(lambda: app.state.engine))
    )
    install_problem_handlers(app, "agent")

    async def traces_health() -> dict[str, Any]:
        """The span outbox: traces held (batches, spans), whether the ingest answers, the last error."""
        telemetry: AgentTelemetry | None = app.state.telemetry
        if telemetry is None or telemetry.outbox is None:
            return {"exporting": bool(telemetry and telemetry.exporting)}
        try:
            outbox = (await asyncio.to_thread(telemetry.outbox.state)).model_dump(mode="json")
        except Exception as exc:  # Postgres away: say so rather than fail the probe
            outbox = {"error": f"the span outbox cannot be read: {exc}"}
        return {"exporting": True, "outbox": outbox}

    @app.get("/healthz", tags=["health"])
    async def healthz(response: Response) -> dict[str, Any]:
        """503 while starting or while NATS is unreachable (agent.invoke cannot be answered then).
        PostgreSQL (conversations, the span outbox) is named as it is, not a reason for 503; ``traces``
        tells how many traces wait in the span outbox and whether the ingest answers; the ingest being
        away does not make the agent unhealthy (its traces are kept)."""
        nats = nats_health.model_dump(mode="json")
        if app.state.conversations is None:
            response.status_code = status.HTTP_503_SERVICE_UNAVAILABLE
            return {"status": "starting", "nats": nats}
        body = {
            "nats": nats,
            "postgres": (await postgres_health(app.state.engine)).model_dump(mode="json"),
            "traces": await traces_health(),
        }
        if not nats_health.connected:
            response.status_code = status.HTTP_503_SERVICE_UNAVAILABLE
            return {"status": "nats unreachable: reconnecting"} | body
        return {"status": "ok"} | body

    return app
