"""Entrypoint: ``python -m services.evaluator.main`` runs one eval worker process (exit 0 after a
clean drain, 3 when start-up fails, 1 if the fetch loop died: see :mod:`shared.service`)."""

from __future__ import annotations

from fastapi import FastAPI

from services.evaluator.http_app import build_app
from services.evaluator.settings import WorkerSettings
from services.evaluator.worker import EvalWorker
from shared.evaluators.loading import process_registry
from shared.service import ServiceProcess, run_service


def build(settings: WorkerSettings, process: ServiceProcess) -> FastAPI:
    # ---- objects built once at start-up, before /healthz says ok (never inside the first task) ----
    registry = process_registry()  # a plugin that fails to import stops the service here
    # ------------------------------------------------------------------------------------------------
    return build_app(EvalWorker(settings, on_fatal=process.fail, registry=registry))


def main() -> None:
    run_service("evaluator", WorkerSettings, build, access_log=False)


if __name__ == "__main__":
    main()
