"""Entrypoint: ``python -m services.evaluator.main`` runs one eval worker process."""

from __future__ import annotations

import asyncio
import sys

from services.evaluator.http_app import build_app
from services.evaluator.http_server import bind, make_server, serve
from services.evaluator.settings import WorkerSettings
from services.evaluator.worker import EvalWorker
from shared.evaluators.loading import process_registry
from shared.log_setup import configure_logging


async def run(settings: WorkerSettings) -> int:
    """Serve /healthz and the worker loop until SIGTERM/SIGINT. Exit code 0 after a clean drain,
    3 when start-up fails (uvicorn's code: NATS unreachable, consumer not declared), 1 if the loop died."""
    worker = EvalWorker(settings, registry=process_registry())
    server = make_server(build_app(worker))
    failures: list[BaseException] = []

    def stop_on_fatal(exc: BaseException) -> None:
        failures.append(exc)
        server.should_exit = True

    worker.on_fatal = stop_on_fatal
    started = await serve(server, bind(settings.http_host, settings.http_port))
    return 0 if started and not failures else 1


def main() -> None:
    settings = WorkerSettings()
    configure_logging("evaluator", settings.log_level, settings.log_json)
    process_registry()  # built before /healthz says ok; a plugin that fails to import stops here
    sys.exit(asyncio.run(run(settings)))


if __name__ == "__main__":
    main()
