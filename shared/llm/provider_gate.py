"""Where an LLM call made deep inside an evaluator (a judge) meets its provider's limits.

A judge does not know which process runs it. In an eval worker, many judges of many experiments call
one provider at once, and the provider's rate limit is the account's, not the run's: the worker
installs its gate for each task (:func:`provider_gate_in_use`, a context variable like the judge
cache), and :func:`~shared.llm.transport.post_chat` sends every request through it. There, as for
the worker's targets (``services/evaluator/throttling``), a 429 (or 503 with ``Retry-After``) pauses
that provider for every worker, halves the worker's concurrency for it (growing back on success),
and the request is sent again once the pause is over: a throttle is waited out, not counted
against ``max_retries``. Only the worker's throttle budget (``EVAL_THROTTLE_MAX_WAIT_S``) bounds the
wait, after which the gate raises :class:`WaitedTooLong` and the judge's verdict is "not measured",
saying so. Without a gate (the CLI, the sampler, a test), a throttle is retried by the call itself
under ``max_retries``, as before.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Protocol, TypeVar

T = TypeVar("T")


class ProviderThrottled(Exception):
    """The endpoint is rate limiting (HTTP 429, or 503 with ``Retry-After``): wait, then send again."""

    def __init__(self, message: str, *, status: int, retry_after_s: float | None) -> None:
        super().__init__(message)
        self.status = status
        self.retry_after_s = retry_after_s


class WaitedTooLong(Exception):
    """The endpoint kept throttling for longer than the gate waits."""


class ProviderGate(Protocol):
    async def call_provider(self, provider: str, attempt: Callable[[], Awaitable[T]]) -> T:
        """``attempt()`` under ``provider``'s shared limits, again after each
        :class:`ProviderThrottled`; :class:`WaitedTooLong` once the waits are too long."""
        ...


_gate: ContextVar[ProviderGate | None] = ContextVar("provider_gate", default=None)


@contextmanager
def provider_gate_in_use(gate: ProviderGate | None) -> Iterator[None]:
    """LLM calls made inside this block go through ``gate`` (None: none)."""
    token = _gate.set(gate)
    try:
        yield
    finally:
        _gate.reset(token)


def current_gate() -> ProviderGate | None:
    return _gate.get()
