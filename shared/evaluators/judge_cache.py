"""The judge cache: a measured verdict reused instead of asking the model again.

A verdict is keyed by :func:`verdict_key`: sha256 of a canonical JSON form (sorted keys, no
whitespace) of the key format's version, the judge (name and prompt version), its model (provider,
model, endpoint, temperature), the judge's arguments and the judged content (input, output,
expected output). Which store holds the verdicts is the caller's business: the eval worker and the
sampler install one per task with :func:`judge_cache_in_use` (a context variable, so concurrent
tasks of different projects never share one); without one, every judge asks its model.

Only measured verdicts (a number) are stored; "not measured" and "skipped" never are, so a provider
that was down yesterday is asked again today. A hit is the stored evaluation with
``metadata.judge_cache = "hit"`` and no request, retry or token spent (``usage`` zero), the
original figures kept in ``metadata.cached_usage``.
"""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, Protocol

from shared.llm import LlmCallStats, LlmConfig
from yardstick.api.evaluation import Evaluation

log = logging.getLogger(__name__)

KEY_VERSION = 1
HIT = "hit"
"""``metadata.judge_cache`` of an evaluation served from the cache."""


class JudgeVerdictStore(Protocol):
    """Where one project's verdicts live (the project is the store's, never part of a lookup)."""

    async def get(self, key: str) -> Evaluation | None: ...

    async def put(self, key: str, judge: str, verdict: Evaluation) -> None: ...


_store: ContextVar[JudgeVerdictStore | None] = ContextVar("judge_verdict_store", default=None)


@contextmanager
def judge_cache_in_use(store: JudgeVerdictStore | None) -> Iterator[None]:
    """Judges run inside this block read and write ``store`` (None: no cache)."""
    token = _store.set(store)
    try:
        yield
    finally:
        _store.reset(token)


def current_store() -> JudgeVerdictStore | None:
    return _store.get()


def verdict_key(
    name: str, version: str, config: LlmConfig, args: Mapping[str, Any], content: Mapping[str, Any]
) -> str:
    """sha256 (hex) of the canonical form of everything a verdict depends on."""
    canonical = json.dumps(
        {
            "v": KEY_VERSION,
            "judge": name,
            "prompt_version": version,
            "provider": config.provider,
            "model": config.model,
            "endpoint": config.base_url.rstrip("/"),
            "temperature": config.temperature,
            "args": {k: v for k, v in args.items() if v is not None},
            "content": dict(content),
        },
        sort_keys=True,
        separators=(",", ":"),
        ensure_ascii=False,
        default=str,
    )
    return hashlib.sha256(canonical.encode()).hexdigest()


def as_hit(verdict: Evaluation) -> Evaluation:
    """A stored verdict as served now: nothing was spent on it."""
    metadata = dict(verdict.metadata or {})
    metadata["cached_usage"] = metadata.get("usage")
    metadata.update(LlmCallStats(response_format=metadata.get("response_format")).as_metadata())
    metadata["judge_cache"] = HIT
    return verdict.model_copy(update={"metadata": metadata})


def cacheable(verdict: Evaluation) -> bool:
    """Only a measured verdict (a finite number, no error) is worth keeping."""
    return verdict.error is None and verdict.numeric is not None


async def cached_verdict(store: JudgeVerdictStore, key: str) -> Evaluation | None:
    """The stored verdict as a hit, or None; a store that fails is a miss (logged), never an error."""
    try:
        found = await store.get(key)
    except Exception:
        log.warning("judge cache lookup failed; asking the model", exc_info=True)
        return None
    return None if found is None else as_hit(found)


async def remember(store: JudgeVerdictStore, key: str, judge: str, verdict: Evaluation) -> None:
    """Store a measured verdict (a failing store is logged: the verdict itself stands)."""
    if not cacheable(verdict):
        return
    try:
        await store.put(key, judge, verdict)
    except Exception:
        log.warning("judge cache write failed; the verdict stands uncached", exc_info=True)
