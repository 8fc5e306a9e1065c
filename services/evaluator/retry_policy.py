"""Redelivery arithmetic: nack backoff and the delivery that counts as the last one."""

from __future__ import annotations


def backoff_delay(attempt: int, base_s: float, cap_s: float) -> float:
    """Nack delay after failed delivery number ``attempt`` (1-based): ``base * 2**(attempt-1)``, capped."""
    if attempt < 1:
        raise ValueError(f"attempt must be >= 1 (JetStream counts deliveries from 1), got {attempt}")
    exponent = min(attempt - 1, 62)
    return float(min(cap_s, base_s * (2.0**exponent)))


def effective_max_deliver(configured: int, consumer_max_deliver: int | None) -> int:
    """The last delivery the worker will see: the server stops redelivering after the consumer's
    ``max_deliver`` (-1 or 0 = unlimited), so a larger configured value would lose the task."""
    if consumer_max_deliver is None or consumer_max_deliver <= 0:
        return configured
    return min(configured, consumer_max_deliver)


def is_last_delivery(num_delivered: int, max_deliver: int) -> bool:
    return num_delivered >= max_deliver
