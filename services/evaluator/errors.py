"""Why a target call failed, split by what the worker does about it."""

from __future__ import annotations

from shared.llm.provider_gate import ProviderThrottled, WaitedTooLong
from yardstick.api.item_failure import ItemFailure


class TargetError(Exception):
    """The target cannot produce an output for this item: record an error result, do not retry."""


class TargetRejected(TargetError):
    """The target answered with its own error (``ok=False``, HTTP 4xx, a reply that is not valid)."""


class TargetFailed(TargetRejected):
    """The target's own code raised and said how (a python task's exception): its ``failure`` is
    recorded as the item's, the target's type, message and traceback rather than the worker's."""

    def __init__(self, message: str, failure: ItemFailure) -> None:
        super().__init__(message)
        self.failure = failure


class TargetConfigError(TargetError):
    """The task's target specification cannot work on this worker (missing env var, bad template)."""


class TransientTargetError(Exception):
    """Worth another attempt: nack with backoff; on the last delivery it becomes an error result."""


class TargetTimeout(TransientTargetError):
    """The target did not answer within the task's ``timeout_s``."""


class TargetUnavailable(TransientTargetError):
    """No responder, connection refused/reset, or an HTTP 5xx."""


class ResultPublishError(Exception):
    """JetStream did not acknowledge the result publish; the task is nacked and redone."""


class TargetThrottled(ProviderThrottled):
    """The target is rate limiting (HTTP 429, or 503 with ``Retry-After``): wait and call again in the
    same delivery; never an error by itself and never a counted delivery (see ``throttling``)."""


class ThrottledTooLong(TargetError, WaitedTooLong):
    """The target kept throttling for longer than the worker waits (``EVAL_THROTTLE_MAX_WAIT_S``)."""
