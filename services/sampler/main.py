"""Sampler entry point: `python -m services.sampler.main` (see :mod:`shared.service`).

The process holds many small objects (fetched spans, their traces' records) and allocates a great
many more while storing; CPython's collector, left at its defaults, ran a young collection every 700
allocations and took about a third of the time of reading a trace. So the objects made at start-up
(modules, the registry, the app) are frozen out of the collector, and a young collection runs every
:data:`GC_YOUNG_THRESHOLD` allocations (cycles are still collected, less often).
"""

from __future__ import annotations

import gc

from fastapi import FastAPI

from services.sampler.http_app import create_app
from services.sampler.settings import SamplerSettings
from shared.evaluators.loading import process_registry
from shared.service import ServiceProcess, run_service

GC_YOUNG_THRESHOLD = 20_000


def build(settings: SamplerSettings, process: ServiceProcess) -> FastAPI:
    # ---- objects built once at start-up, before /healthz says ok (never inside the first task) ----
    registry = process_registry()  # a plugin that fails to import stops the service here
    # ------------------------------------------------------------------------------------------------
    app = create_app(settings, registry)
    gc.freeze()
    gc.set_threshold(GC_YOUNG_THRESHOLD, 10, 10)
    return app


def main() -> None:
    run_service("sampler", SamplerSettings, build)


if __name__ == "__main__":
    main()
