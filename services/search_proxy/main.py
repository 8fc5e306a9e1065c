"""search-proxy entrypoint: ``python -m services.search_proxy.main`` (``app`` is importable)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import uvicorn
from fastapi import FastAPI

from services.search_proxy.http_api import install_routes
from services.search_proxy.nats_handler import register_answer_subscriber, register_search_subscriber
from services.search_proxy.runtime import start_runtime
from services.search_proxy.settings import SearchProxySettings
from shared.http.input_guard import InputGuard
from shared.log_setup import configure_logging
from shared.messaging import ConnectionHealth
from shared.messaging.faststream_broker import new_broker, start_serving
from shared.settings import DEFAULT_MAX_BODY_BYTES


def create_app(settings: SearchProxySettings | None = None) -> FastAPI:
    """The app; with ``settings=None`` they are read from the environment at startup."""

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        cfg = settings
        if cfg is None:  # imported by an ASGI server: read the environment, own the logging
            cfg = SearchProxySettings()  # type: ignore[call-arg]  # DATABASE_URL from env
            configure_logging("search-proxy", cfg.log_level, cfg.log_json)
        runtime = await start_runtime(cfg)
        nats_health = ConnectionHealth()
        broker = new_broker(
            cfg.nats_url, "services.search_proxy.nats", nats_health, "search-proxy", cfg.nats_reconnect_wait_s
        )
        register_search_subscriber(broker, cfg.topology.search_query, runtime.service)
        register_answer_subscriber(broker, cfg.topology.search_answer, runtime.answers)
        await start_serving(broker, nats_health)
        app.state.nats_health = nats_health
        app.state.search_service = runtime.service
        app.state.answer_service = runtime.answers
        app.state.default_backend = cfg.search_backend
        app.state.corpus_version = runtime.corpus_version
        try:
            yield
        finally:
            await broker.stop()
            await runtime.close()

    app = FastAPI(title="Yardstick search-proxy", lifespan=lifespan)
    max_body = settings.max_body_bytes if settings is not None else DEFAULT_MAX_BODY_BYTES
    app.add_middleware(InputGuard, max_body_bytes=max_body)
    install_routes(app)
    return app


app = create_app()


def main() -> None:
    cfg = SearchProxySettings()  # type: ignore[call-arg]
    configure_logging("search-proxy", cfg.log_level, cfg.log_json)
    uvicorn.run(create_app(cfg), host=cfg.http_host, port=cfg.http_port, log_config=None)


if __name__ == "__main__":
    main()
