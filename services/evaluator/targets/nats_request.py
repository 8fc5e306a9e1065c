"""A NATS request/reply round trip with the transient failures classified."""

from __future__ import annotations

import nats.errors
from nats.aio.client import Client as NatsClient
from pydantic import BaseModel

from services.evaluator.errors import TargetTimeout, TargetUnavailable


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
