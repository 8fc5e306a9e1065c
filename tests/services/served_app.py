"""An ASGI app served over real HTTP (uvicorn in a thread) for the length of a block: the coordinator
for the CLI's and the API contract's tests (``live_api.py``), the ingest service for its own."""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager

import uvicorn
from fastapi import FastAPI

START_TIMEOUT_S = 30.0


class _Server(uvicorn.Server):
    """Sets ``ready`` once startup (the app's lifespan included) is over, however it ended."""

    def __init__(self, config: uvicorn.Config) -> None:
        super().__init__(config)
        self.ready = threading.Event()

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        try:
            await super().startup(sockets)
        finally:
            self.ready.set()


@contextmanager
def served(app: FastAPI, what: str, port: int = 0, access_log: bool = True) -> Iterator[str]:
    """``app`` on 127.0.0.1:``port`` (0: a free one) until the block ends; yields its base URL.
    ``what`` names it in the failure when it does not start."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # a restart on the same port
    sock.bind(("127.0.0.1", port))
    port = sock.getsockname()[1]
    server = _Server(uvicorn.Config(app, log_config=None, lifespan="on", access_log=access_log))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    try:
        assert server.ready.wait(START_TIMEOUT_S) and server.started, f"{what} did not start"
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(15)
        sock.close()
