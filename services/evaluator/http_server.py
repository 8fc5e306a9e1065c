"""Serve an ASGI app with uvicorn on an already bound socket (so port 0 is known and logged),
turning SIGTERM/SIGINT into a graceful shutdown that exits with code 0."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
import socket
from collections.abc import Generator

import uvicorn
from fastapi import FastAPI

log = logging.getLogger(__name__)


class GracefulServer(uvicorn.Server):
    """uvicorn re-raises a caught SIGTERM after shutting down, which kills the process with -15;
    a worker that drained cleanly should exit 0 instead."""

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


def bind(host: str, port: int) -> socket.socket:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))
    sock.set_inheritable(True)
    return sock


async def serve(server: GracefulServer, sock: socket.socket) -> bool:
    """Run until a signal (or ``server.should_exit``); True when startup succeeded."""
    host, port = sock.getsockname()[:2]
    log.info("http listening", extra={"host": host, "http_port": port})
    await server.serve(sockets=[sock])
    return server.started


def make_server(app: FastAPI) -> GracefulServer:
    return GracefulServer(uvicorn.Config(app, log_config=None, access_log=False, lifespan="on"))
