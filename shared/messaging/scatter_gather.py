"""Ask every responder on a core-NATS subject (no queue group) and gather their answers: wait up
to ``first_s`` for the first, then until ``quiet_s`` passes without another. Answers that do not
fit the model are skipped."""

from __future__ import annotations

import asyncio
import contextlib
from typing import TypeVar

from nats.aio.client import Client as NatsClient
from nats.aio.msg import Msg
from pydantic import BaseModel, ValidationError

M = TypeVar("M", bound=BaseModel)

FIRST_ANSWER_S = 0.3
QUIET_S = 0.05


async def gather_answers(
    nc: NatsClient, subject: str, model: type[M], *, first_s: float = FIRST_ANSWER_S, quiet_s: float = QUIET_S
) -> list[M]:
    answers: list[M] = []
    arrived = asyncio.Event()

    async def collect(msg: Msg) -> None:
        with contextlib.suppress(ValidationError):
            answers.append(model.model_validate_json(msg.data))
            arrived.set()

    inbox = nc.new_inbox()
    sub = await nc.subscribe(inbox, cb=collect)
    try:
        await nc.publish(subject, b"", reply=inbox)
        timeout = first_s
        while True:
            try:
                await asyncio.wait_for(arrived.wait(), timeout)
            except TimeoutError:
                return answers
            arrived.clear()
            timeout = quiet_s
    finally:
        await sub.unsubscribe()
