"""The output cache (opt-in per experiment, ``cache: {ttl_s}``): a target's output for one
(target configuration, item input, trial), so a rerun that changes only its evaluators calls no
target.

- key: sha256 of the project (one project never reads another's outputs), the target configuration
  (canonical JSON), the item's input (Postgres' jsonb text, which is canonical: sorted keys, no
  duplicates) and the trial; for the agent, also the
  content hash of the prompt its reference resolves to in the registry now, so moving a label
  (``@staging`` to a new version) or pushing a new ``production`` misses the cache instead of
  serving the old prompt's outputs. A reference the registry does not hold (a Langfuse prompt, or
  the built-in default) is keyed by its text: with Langfuse prompts, a moved label is not seen;
- at submission, every item whose key holds an entry not yet expired and younger than this
  experiment's ``ttl_s`` carries that output (``experiment_items.recorded``, source 'cache'); its
  task is scored by the eval workers without a target call;
- at completion, the experiment's ok outputs that came from the target are stored with
  ``expires_at = now + ttl_s`` (an upsert: a rerun refreshes them). Errors are never cached.
"""

from __future__ import annotations

import json
from typing import Any

from sqlalchemy import CursorResult, text
from sqlalchemy.ext.asyncio import AsyncSession

from shared.db import prompts as prompt_store
from shared.db.project_scope import session_project
from yardstick.api.eval_messages import AgentTarget, TargetSpec
from yardstick.api.experiment_config import ExperimentConfig

CACHE_KEY_VERSION = 3  # 2: the agent's resolved prompt is part of the key; 3: the project too

_SET_KEYS = text(
    """
    UPDATE experiment_items
    SET cache_key = encode(sha256(convert_to(
        CAST(:prefix AS text) || input::text || '|' || trial::text, 'UTF8')), 'hex')
    WHERE experiment_id = :experiment_id
    """
)

_ATTACH = text(
    """
    UPDATE experiment_items AS ei
    SET recorded = jsonb_build_object(
        'source', 'cache', 'output', c.output, 'latency_ms', c.latency_ms, 'usage', c.usage)
    FROM output_cache AS c
    WHERE ei.experiment_id = :experiment_id AND ei.status = 'pending' AND ei.recorded IS NULL
      AND c.key = ei.cache_key AND c.expires_at > now()
      AND c.created_at > now() - make_interval(secs => :ttl_s)
    """
)

_STORE = text(
    """
    INSERT INTO output_cache (key, output, latency_ms, usage, experiment_id, created_at, expires_at)
    SELECT DISTINCT ON (cache_key) cache_key, output, latency_ms, usage, experiment_id, now(),
           now() + make_interval(secs => :ttl_s)
    FROM experiment_items
    WHERE experiment_id = :experiment_id AND status = 'ok' AND cache_key IS NOT NULL
      AND recorded IS NULL
    ORDER BY cache_key, finished_at DESC
    ON CONFLICT (key) DO UPDATE
    SET output = excluded.output, latency_ms = excluded.latency_ms, usage = excluded.usage,
        experiment_id = excluded.experiment_id, created_at = excluded.created_at,
        expires_at = excluded.expires_at
    """
)

_PURGE = text("DELETE FROM output_cache WHERE expires_at <= now()")


async def key_prefix(session: AsyncSession, target: TargetSpec) -> str:
    """What the key hashes before the item's input: the key format's version, the project of the
    (scoped) session, the target and, for the agent, the prompt its reference names now."""
    project = session_project(session)
    if project is None:
        raise RuntimeError("the output cache key needs a session scoped to the experiment's project")
    canonical = json.dumps(target.model_dump(mode="json"), sort_keys=True, separators=(",", ":"))
    if isinstance(target, AgentTarget):
        ref = target.prompt_ref()
        resolved = await prompt_store.resolve(session, ref)
        canonical += f"|prompt:{resolved.content_hash}" if resolved else f"|prompt:{ref}:unregistered"
    return f"v{CACHE_KEY_VERSION}|project:{project}|{canonical}|"


async def attach_cached_outputs(session: AsyncSession, experiment_id: str, config: ExperimentConfig) -> int:
    """Key the experiment's items and attach fresh cached outputs; returns the number of hits."""
    if config.cache is None:
        return 0
    prefix = await key_prefix(session, config.target)
    await session.execute(_SET_KEYS, {"prefix": prefix, "experiment_id": experiment_id})
    result: CursorResult[Any] = await session.execute(  # type: ignore[assignment]
        _ATTACH, {"experiment_id": experiment_id, "ttl_s": config.cache.ttl_s}
    )
    return int(result.rowcount or 0)


async def store_outputs(session: AsyncSession, experiment_id: str, config: ExperimentConfig) -> int:
    """Cache the experiment's ok outputs that its target produced (idempotent); drop expired
    entries. Returns how many were written."""
    if config.cache is None:
        return 0
    await session.execute(_PURGE)
    result: CursorResult[Any] = await session.execute(  # type: ignore[assignment]
        _STORE, {"experiment_id": experiment_id, "ttl_s": config.cache.ttl_s}
    )
    return int(result.rowcount or 0)
