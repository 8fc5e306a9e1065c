"""Decode a JetStream message into its contract, or terminate it: the one step every pull loop takes.

A message that does not validate can never succeed, whatever the number of redeliveries: it is
TERMinated (confirmed by the server) and logged once, with its subject and the validation error,
instead of being redelivered until ``max_deliver`` or crashing the loop.
"""

from __future__ import annotations

import logging
from typing import TypeVar

from nats.aio.msg import Msg
from pydantic import BaseModel, ValidationError

from shared.messaging.acks import settle

log = logging.getLogger(__name__)

M = TypeVar("M", bound=BaseModel)


async def decode_or_terminate(msg: Msg, model: type[M]) -> M | None:
    """``model`` from ``msg``'s JSON body, or None after terminating a message that is not one."""
    try:
        return model.model_validate_json(msg.data)
    except ValidationError as exc:
        log.error(
            "terminating a message that is not a %s: it can never succeed",
            model.__name__,
            extra={"subject": msg.subject, "error": str(exc)[:500]},
        )
        await settle(msg, "term")
        return None
