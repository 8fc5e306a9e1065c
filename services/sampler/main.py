"""Sampler entry point: `python -m services.sampler.main` (see :mod:`shared.service`).

The process holds many small objects (fetched spans, their traces' records) and allocates a great
many more while storing; with CPython's default collector settings a young collection ran every 700
allocations and took about a third of the time of reading a trace. :func:`shared.service.run_service`
freezes what start-up built and collects the young generation less often, in every service.
"""

from __future__ import annotations

from fastapi import FastAPI

from services.sampler.http_app import create_app
from services.sampler.settings import SamplerSettings
from shared.evaluators.loading import process_registry
from shared.service import ServiceProcess, run_service


def build(settings: SamplerSettings, process: ServiceProcess) -> FastAPI:
    # ---- objects built once at start-up, before /healthz says ok (never inside the first task) ----
    registry = process_registry()  # a plugin that fails to import stops the service here
    # ------------------------------------------------------------------------------------------------
    return create_app(settings, registry)


def main() -> None:
    run_service("sampler", SamplerSettings, build)


if __name__ == "__main__":
    main()
