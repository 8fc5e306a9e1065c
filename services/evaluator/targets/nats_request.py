"""Targets answered over NATS request/reply (the agent, the search-proxy): one round trip with the
transient failures classified, the reply validated into its contract and checked for ``ok``."""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Generic, Protocol, TypeVar

import nats.errors
from nats.aio.client import Client as NatsClient
from pydantic import BaseModel, ValidationError

from services.evaluator.errors import TargetRejected, TargetTimeout, TargetUnavailable
from services.evaluator.targets.base import CallContext, TargetOutput
from yardstick.api.eval_messages import EvalTask


class Reply(Protocol):
    ok: bool
    error: str | None


Req = TypeVar("Req", bound=BaseModel)
Resp = TypeVar("Resp", bound=BaseModel)


async def request_json(
    nc: NatsClient, subject: str, body: BaseModel, *, timeout_s: float, headers: dict[str, str]
) -> bytes:
    """Send ``body`` as JSON and return the raw reply payload."""
    try:
        reply = await nc.request(subject, body.model_dump_json().encode(), timeout=timeout_s, headers=headers)
    except nats.errors.NoRespondersError as exc:
        raise TargetUnavailable(
            f"no service answers on {subject!r}: start it (or check NATS_NAMESPACE matches)"
        ) from exc
    except TimeoutError as exc:  # nats.errors.TimeoutError is an asyncio.TimeoutError
        raise TargetTimeout(f"no reply on {subject!r} within {timeout_s:g}s") from exc
    except (nats.errors.ConnectionClosedError, nats.errors.ConnectionReconnectingError) as exc:
        raise TargetUnavailable(f"NATS connection unavailable while calling {subject!r}: {exc}") from exc
    return bytes(reply.data)


class NatsRequestTarget(ABC, Generic[Req, Resp]):
    """Build the service's request from the task, send it, validate and map the reply."""

    service: str
    """Who answers, for error messages ("agent", "search-proxy")."""
    reply_model: type[Resp]

    def __init__(self, nc: NatsClient, subject: str) -> None:
        self._nc = nc
        self._subject = subject

    @abstractmethod
    def build_request(self, task: EvalTask) -> Req:
        """The request for this item; ``TargetConfigError`` when the item cannot make one."""

    @abstractmethod
    def output(self, reply: Resp) -> TargetOutput: ...

    async def call(self, task: EvalTask, ctx: CallContext) -> TargetOutput:
        request = self.build_request(task)
        raw = await request_json(
            self._nc, self._subject, request, timeout_s=task.timeout_s, headers=ctx.headers()
        )
        try:
            reply = self.reply_model.model_validate_json(raw)
        except ValidationError as exc:
            raise TargetRejected(f"{self.service} reply is not a {self.reply_model.__name__}: {exc}") from exc
        status: Reply = reply  # type: ignore[assignment]  # every reply contract has ok/error
        if not status.ok:
            raise TargetRejected(f"{self.service} answered with an error: {status.error or '(no message)'}")
        return self.output(reply)
