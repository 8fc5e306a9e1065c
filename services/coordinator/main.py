"""Coordinator entry point: `python -m services.coordinator.main`."""

from __future__ import annotations

import uvicorn

from services.coordinator.app import create_app
from services.coordinator.settings import CoordinatorSettings
from shared.evaluators.loading import process_registry
from shared.log_setup import configure_logging


def main() -> None:
    settings = CoordinatorSettings()  # type: ignore[call-arg]  # read from the environment
    configure_logging("coordinator", settings.log_level, settings.log_json)
    process_registry()  # built before /healthz says ok; a plugin that fails to import stops here
    uvicorn.run(create_app(settings), host=settings.http_host, port=settings.http_port, log_config=None)


if __name__ == "__main__":
    main()
