"""One way to start a service: settings → logging → start-up objects → serve → graceful stop.

Every ``services/*/main.py`` is ``run_service(NAME, SettingsClass, build)``: the settings are read
from the environment once, logging is configured for the service, then ``build(settings, process)``
makes the objects the service needs once (evaluators, registries) and returns its FastAPI app,
whose lifespan connects to NATS and Postgres and closes them again. The app is served with uvicorn
on a socket bound here (so port 0 is known and logged) until SIGTERM or SIGINT.

Exit codes, the same for every service: 0 after a graceful stop (uvicorn would re-raise the signal
and die with -15), 3 when start-up failed (the lifespan raised: NATS unreachable, a consumer not
declared; uvicorn's own code for it), 1 when something the service runs died and called
:meth:`ServiceProcess.fail` (the eval worker's fetch loop).
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
import signal
import socket
import sys
from collections.abc import Callable, Generator
from typing import NoReturn, TypeVar

import uvicorn
from fastapi import FastAPI

from shared.file_limits import raise_open_file_limit
from shared.log_setup import configure_logging
from shared.settings import CommonSettings

log = logging.getLogger(__name__)

S = TypeVar("S", bound=CommonSettings)

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_STARTUP_FAILED = 3


class GracefulServer(uvicorn.Server):
    """uvicorn re-raises a caught SIGTERM after shutting down, which kills the process with -15;
    a service that stopped cleanly should exit 0 instead."""

    @contextlib.contextmanager
    def capture_signals(self) -> Generator[None, None, None]:
        loop = asyncio.get_running_loop()
        handled = (signal.SIGINT, signal.SIGTERM)
        for sig in handled:
            loop.add_signal_handler(sig, self.handle_exit, sig, None)
        try:
            yield
        finally:
            for sig in handled:
                loop.remove_signal_handler(sig)


class ServiceProcess:
    """What a service's objects may ask of the process serving them: to stop because something it
    runs died (the process then exits 1)."""

    def __init__(self) -> None:
        self.failure: BaseException | None = None
        self.server: GracefulServer | None = None

    def fail(self, exc: BaseException) -> None:
        self.failure = exc
        if self.server is not None:
            self.server.should_exit = True


def bind(host: str, port: int) -> socket.socket:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))
    sock.set_inheritable(True)
    return sock


async def serve(
    app: FastAPI, sock: socket.socket, process: ServiceProcess, *, access_log: bool = True
) -> int:
    """Serve ``app`` on ``sock`` until a signal or :meth:`ServiceProcess.fail`; the exit code."""
    server = GracefulServer(uvicorn.Config(app, log_config=None, access_log=access_log, lifespan="on"))
    process.server = server
    host, port = sock.getsockname()[:2]
    log.info("http listening", extra={"host": host, "http_port": port})
    await server.serve(sockets=[sock])
    if not server.started:
        return EXIT_STARTUP_FAILED
    return EXIT_OK if process.failure is None else EXIT_FAILED


GC_GEN0_THRESHOLD = 50_000
"""Container allocations between two young-generation collections (CPython's default is 700): a
service allocates a few hundred short-lived objects per message and frees them by reference count;
collecting every 700 allocations cost several per cent of the hot path's CPU."""


def tune_garbage_collector() -> None:
    """Freeze what start-up built (modules, the app: never garbage, never scanned again) and collect
    the young generation less often."""
    gc.collect()
    gc.freeze()
    _, older, oldest = gc.get_threshold()
    gc.set_threshold(GC_GEN0_THRESHOLD, older, oldest)


def run_service(
    name: str,
    settings: Callable[[], S],
    build: Callable[[S, ServiceProcess], FastAPI],
    *,
    access_log: bool = True,
) -> NoReturn:
    """Start the service ``name`` (its log lines say so) and exit with its exit code."""
    config = settings()
    configure_logging(name, config.log_level, config.log_json)
    raise_open_file_limit()
    process = ServiceProcess()
    app = build(config, process)
    sock = bind(config.http_host, config.http_port)
    tune_garbage_collector()
    sys.exit(asyncio.run(serve(app, sock, process, access_log=access_log)))


__all__ = [
    "EXIT_FAILED",
    "EXIT_OK",
    "EXIT_STARTUP_FAILED",
    "GracefulServer",
    "ServiceProcess",
    "bind",
    "run_service",
    "serve",
]
