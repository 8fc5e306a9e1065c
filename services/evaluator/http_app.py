"""The worker's small HTTP surface: ``GET /healthz``, ``GET /metrics``; the app lifespan runs the
worker loop."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import APIRouter, FastAPI, Response, status

from services.evaluator.worker import EvalWorker, WorkerStatus
from shared.http.problem_details import install_problem_handlers
from shared.metrics import consumer_lag_probe, metrics_router, nats_probe, postgres_probe
from yardstick.api.topology import EVAL_WORKERS_CONSUMER


def build_app(worker: EvalWorker) -> FastAPI:
    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        await worker.start()
        try:
            yield
        finally:
            await worker.stop()

    router = APIRouter(tags=["health"])

    @router.get("/healthz", response_model=WorkerStatus)
    async def healthz(response: Response) -> WorkerStatus:
        """Connected to NATS and the number of tasks in flight; 503 when NATS is down."""
        current = worker.status()
        if not current.connected:
            response.status_code = status.HTTP_503_SERVICE_UNAVAILABLE
        return current

    app = FastAPI(title="Yardstick eval worker", lifespan=lifespan)
    install_problem_handlers(app, "eval worker")
    app.include_router(router)
    app.include_router(
        metrics_router(
            nats_probe(lambda: worker.nats_health),
            postgres_probe(lambda: worker.engine),
            consumer_lag_probe(
                lambda: worker.jetstream,
                lambda: [(worker.settings.topology.eval_tasks_stream, EVAL_WORKERS_CONSUMER)],
            ),
        )
    )
    return app
