"""The coordinator's FastAPI application."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI
from fastapi.responses import JSONResponse

from services.coordinator.access.api import audit, keys, projects, sign_in_links
from services.coordinator.comparisons.api import comparisons, plans
from services.coordinator.datasets.api import datasets
from services.coordinator.experiments.api import experiments, rescore
from services.coordinator.prompts.api import prompts
from services.coordinator.review.api import calibration, review
from services.coordinator.runtime import Runtime
from services.coordinator.settings import CoordinatorSettings
from services.coordinator.traces.api import backfills, online, traces
from services.coordinator.ui.router import install_ui, refusal_page
from shared.db.health import postgres_health
from shared.evaluators import EvaluatorRegistry
from shared.http.input_guard import InputGuard
from shared.http.problem_details import install_problem_handlers
from shared.messaging.streams import consumer_configs
from shared.metrics import consumer_lag_probe, metrics_router, nats_probe, postgres_probe


def create_app(settings: CoordinatorSettings, registry: EvaluatorRegistry | None = None) -> FastAPI:
    """The coordinator's app; ``registry`` the evaluators it checks submissions against and runs at
    finalization (this process's registry when None)."""
    runtime = Runtime(settings, registry)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        await runtime.start()
        yield
        await runtime.stop()

    app = FastAPI(
        title="Yardstick coordinator",
        description=(
            "Run datasets through targets, score, store, compare. Auth: `Authorization: Bearer <API key>`."
        ),
        version="0.1.0",
        lifespan=lifespan,
    )
    app.state.runtime = runtime
    install_problem_handlers(app, "coordinator")
    app.add_middleware(
        InputGuard,
        max_body_bytes=settings.max_body_bytes,
        too_large_hint=(
            "send datasets in batches (POST /datasets/{name}/items merges by id) or raise MAX_BODY_BYTES"
        ),
        page_for=refusal_page,
    )
    app.include_router(datasets.router)
    app.include_router(experiments.router)
    app.include_router(rescore.router)
    app.include_router(comparisons.router)
    app.include_router(plans.router)
    app.include_router(online.router)
    app.include_router(review.alerts_router)
    app.include_router(backfills.router)
    app.include_router(traces.router)
    app.include_router(keys.router)
    app.include_router(projects.router)
    app.include_router(audit.router)
    app.include_router(prompts.router)
    app.include_router(review.router)
    app.include_router(calibration.router)
    app.include_router(sign_in_links.router)
    install_ui(app)
    app.include_router(
        metrics_router(
            nats_probe(lambda: runtime.nats_health if runtime.ready else None),
            postgres_probe(lambda: runtime.engine if runtime.ready else None),
            consumer_lag_probe(  # every durable consumer: the coordinator sees the whole pipeline
                lambda: runtime.js if runtime.ready else None,
                lambda: [
                    (stream, str(config.durable_name))
                    for stream, config in consumer_configs(runtime.topology).items()
                ],
            ),
        )
    )

    @app.get("/healthz", tags=["health"])
    async def healthz() -> JSONResponse:
        """200 when NATS and PostgreSQL both answer; 503 saying which does not, meanwhile."""
        pg = await postgres_health(runtime.engine) if runtime.ready else None
        postgres = pg.problem if pg is not None else "starting"
        nats = runtime.nats_health if runtime.ready else None
        ok = runtime.ready and nats is not None and nats.connected and postgres is None
        body = {
            "ok": ok,
            "service": "coordinator",
            "nats": nats.model_dump(mode="json") if nats else "starting",
            "postgres": postgres or "ok",
            "postgres_server": pg.model_dump(mode="json") if pg is not None else None,
        }
        return JSONResponse(body, status_code=200 if ok else 503)

    return app
