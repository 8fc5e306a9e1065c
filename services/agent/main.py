"""Agent service entrypoint: ``python -m services.agent.main`` (see :mod:`shared.service`)."""

from __future__ import annotations

from fastapi import FastAPI

from services.agent.http_app import create_app
from services.agent.settings import AgentSettings
from shared.service import ServiceProcess, run_service


def build(settings: AgentSettings, process: ServiceProcess) -> FastAPI:
    return create_app(settings)


def main() -> None:
    run_service("agent", AgentSettings, build)


if __name__ == "__main__":
    main()
