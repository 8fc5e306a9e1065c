"""How every service process ends (shared.service): 0 after a graceful stop, 1 when something it runs
failed, 3 when start-up failed."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import pytest
from fastapi import FastAPI

from shared.service import EXIT_FAILED, EXIT_OK, EXIT_STARTUP_FAILED, ServiceProcess, bind, serve

pytestmark = [pytest.mark.unit, pytest.mark.timeout(30)]


def app(fail_at_startup: bool = False) -> FastAPI:
    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        if fail_at_startup:
            raise RuntimeError("NATS unreachable")
        yield

    return FastAPI(lifespan=lifespan)


async def served_until(process: ServiceProcess, stop: str) -> int:
    task = asyncio.create_task(serve(app(), bind("127.0.0.1", 0), process, access_log=False))
    while process.server is None or not process.server.started:
        await asyncio.sleep(0.01)
    if stop == "fail":
        process.fail(RuntimeError("the fetch loop died"))
    else:
        process.server.should_exit = True  # what SIGTERM does
    return await task


async def test_a_graceful_stop_exits_0() -> None:
    assert await served_until(ServiceProcess(), "signal") == EXIT_OK


async def test_a_failure_inside_the_service_exits_1() -> None:
    assert await served_until(ServiceProcess(), "fail") == EXIT_FAILED


async def test_a_failed_start_exits_3() -> None:
    try:
        code = await serve(app(fail_at_startup=True), bind("127.0.0.1", 0), ServiceProcess())
    except SystemExit as exc:  # uvicorn exits with its start-up failure code itself
        code = int(exc.code or 0)
    assert code == EXIT_STARTUP_FAILED
