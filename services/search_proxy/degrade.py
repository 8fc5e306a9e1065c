"""Fault injection: drop all results for a deterministic fraction of queries.

The decision hashes the query text, so the same query is always degraded (or not) at a given
fraction, and raising the fraction only adds queries to the degraded set."""

from __future__ import annotations

import hashlib

_SCALE = float(2**64)


def query_bucket(query: str) -> float:
    """A stable number in [0, 1) for the query (first 8 bytes of its SHA-256)."""
    digest = hashlib.sha256(query.strip().encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big") / _SCALE


def is_degraded(query: str, fraction: float) -> bool:
    if not 0.0 <= fraction <= 1.0:
        raise ValueError(f"degrade fraction must be between 0 and 1, got {fraction}")
    return fraction > 0.0 and query_bucket(query) < fraction
