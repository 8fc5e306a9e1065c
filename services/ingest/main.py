"""Ingest entry point: `python -m services.ingest.main` (see :mod:`shared.service`).

Receives OpenTelemetry traces over OTLP/HTTP (``POST /v1/traces``) into the ``traffic.spans``
JetStream stream; scales by starting more processes behind one address."""

from __future__ import annotations

from fastapi import FastAPI

from services.ingest.http_app import create_app
from services.ingest.settings import IngestSettings
from shared.service import ServiceProcess, run_service


def build(settings: IngestSettings, process: ServiceProcess) -> FastAPI:
    return create_app(settings)


def main() -> None:
    run_service("ingest", IngestSettings, build, access_log=False)


if __name__ == "__main__":
    main()
