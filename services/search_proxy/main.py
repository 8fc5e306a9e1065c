"""search-proxy entrypoint: ``python -m services.search_proxy.main`` (see :mod:`shared.service`)."""

from __future__ import annotations

from fastapi import FastAPI

from services.search_proxy.http_app import create_app
from services.search_proxy.settings import SearchProxySettings
from shared.service import ServiceProcess, run_service


def build(settings: SearchProxySettings, process: ServiceProcess) -> FastAPI:
    return create_app(settings)


def main() -> None:
    run_service("search-proxy", SearchProxySettings, build)


if __name__ == "__main__":
    main()
