"""Sampler entry point: `python -m services.sampler.main`."""

from __future__ import annotations

import uvicorn

from services.sampler.http_app import create_app
from services.sampler.settings import SamplerSettings
from shared.evaluators.loading import process_registry
from shared.log_setup import configure_logging


def main() -> None:
    settings = SamplerSettings()  # read from the environment
    configure_logging("sampler", settings.log_level, settings.log_json)
    process_registry()  # built before /healthz says ok; a plugin that fails to import stops here
    uvicorn.run(create_app(settings), host=settings.http_host, port=settings.http_port, log_config=None)


if __name__ == "__main__":
    main()
