"""The search-proxy's process: the FastAPI app whose lifespan opens the search runtime (corpus,
upstream backends, answerers) and serves ``search.query`` / ``search.answer`` over NATS."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI

from services.search_proxy.http_api import install_routes
from services.search_proxy.nats_handler import register_answer_subscriber, register_search_subscriber
from services.search_proxy.runtime import start_runtime
from services.search_proxy.settings import SearchProxySettings
from shared.http.input_guard import InputGuard
from shared.http.problem_details import install_problem_handlers
from shared.messaging.faststream_broker import new_broker, start_serving
from shared.metrics import metrics_router, nats_probe, postgres_probe
from yardstick.api.nats_connection import ConnectionHealth


def create_app(settings: SearchProxySettings) -> FastAPI:
    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        runtime = await start_runtime(settings)
        nats_health = ConnectionHealth()
        broker = new_broker(
            settings.nats_url,
            "services.search_proxy.nats",
            nats_health,
            "search-proxy",
            settings.nats_reconnect_wait_s,
        )
        register_search_subscriber(broker, settings.topology.search_query, runtime.service)
        register_answer_subscriber(broker, settings.topology.search_answer, runtime.answers)
        await start_serving(broker, nats_health)
        app.state.nats_health = nats_health
        app.state.engine = runtime.engine
        app.state.search_service = runtime.service
        app.state.answer_service = runtime.answers
        app.state.default_backend = settings.search_backend
        app.state.corpus_version = runtime.corpus_version
        app.state.engine = runtime.engine
        try:
            yield
        finally:
            app.state.engine = None
            await broker.stop()
            await runtime.close()

    app = FastAPI(title="Yardstick search-proxy", lifespan=lifespan)
    app.add_middleware(InputGuard, max_body_bytes=settings.max_body_bytes)
    install_problem_handlers(app, "search-proxy")
    install_routes(app)
    app.include_router(  # the state is set while the lifespan runs
        metrics_router(
            nats_probe(lambda: getattr(app.state, "nats_health", None)),
            postgres_probe(lambda: getattr(app.state, "engine", None)),
        )
    )
    return app
