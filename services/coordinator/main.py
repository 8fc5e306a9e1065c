"""Coordinator entry point: `python -m services.coordinator.main` (see :mod:`shared.service`)."""

from __future__ import annotations

from fastapi import FastAPI

from services.coordinator.app import create_app
from services.coordinator.settings import CoordinatorSettings
from shared.evaluators.loading import process_registry
from shared.llm.prices import configured_prices
from shared.service import ServiceProcess, run_service


def build(settings: CoordinatorSettings, process: ServiceProcess) -> FastAPI:
    # ---- objects built once at start-up, before /healthz says ok (never inside the first task) ----
    registry = process_registry()  # a plugin that fails to import stops the service here
    configured_prices()  # an unreadable LLM_PRICES file stops the service here, saying which
    # ------------------------------------------------------------------------------------------------
    return create_app(settings, registry)


def main() -> None:
    run_service("coordinator", CoordinatorSettings, build)  # settings read from the environment


if __name__ == "__main__":
    main()
