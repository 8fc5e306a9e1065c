"""Task functions the SDK tests serve (imported by `yardstick worker tests.yardstick.sample_tasks:…`)."""

from __future__ import annotations

import asyncio
import logging
import os
import time
from typing import Any

import yardstick

log = logging.getLogger("sample_tasks")


@yardstick.task("shout")
def shout(input: dict[str, Any]) -> str:
    """Sync: the question in capitals (a str: stored as {"output": ...})."""
    return str(input["question"]).upper()


@yardstick.task("shout-async")
async def shout_async(input: dict[str, Any]) -> dict[str, Any]:
    """Async: the same answer as a dict."""
    await asyncio.sleep(0)
    return {"output": str(input["question"]).upper(), "thread": "event-loop"}


@yardstick.task("whisper")
def whisper(input: dict[str, Any]) -> str:
    """A worse version of shout: right only for questions that are already lower-case."""
    return str(input["question"]).lower()


@yardstick.task("broken")
def broken(input: dict[str, Any]) -> str:
    raise ValueError(f"cannot answer {input['question']!r}")


@yardstick.task("slow-shout")
def slow_shout(input: dict[str, Any]) -> str:
    """Like shout, but takes ``SLOW_TASK_S`` seconds and logs when it starts and finishes."""
    log.info("slow task started", extra={"question": input["question"], "pid": os.getpid()})
    time.sleep(float(os.environ.get("SLOW_TASK_S", "0.3")))
    log.info("slow task finished", extra={"question": input["question"], "pid": os.getpid()})
    return str(input["question"]).upper()
