"""Write a batch of results idempotently: one UPDATE for the items, one INSERT for their scores.

An item moves to ok/error only from pending/dispatched, so a redelivered or duplicate result changes
nothing; scores are written only for items that moved, with ON CONFLICT DO NOTHING on top. The
judge verdicts served from the judge cache (``metadata.judge_cache = "hit"``) of the items that
moved are added to ``experiments.judge_cache_hits``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncSession

from shared.contracts.eval_messages import EvalResult
from shared.evaluators.judge_cache import HIT

_UPDATE_ITEMS = text(
    """
    UPDATE experiment_items AS ei
    SET status = v.status, output = v.output, error = v.error, latency_ms = v.latency_ms,
        total_ms = v.total_ms, usage = v.usage, attempts = v.attempts, worker_id = v.worker_id,
        finished_at = v.finished_at, throttled = v.throttled
    FROM jsonb_to_recordset(CAST(:payload AS jsonb)) AS v(
        experiment_id text, item_id text, trial int, status text, output jsonb, error text,
        latency_ms float8, total_ms float8, usage jsonb, attempts int, worker_id text,
        finished_at timestamptz, throttled int)
    WHERE ei.experiment_id = v.experiment_id AND ei.item_id = v.item_id AND ei.trial = v.trial
      AND ei.status IN ('pending', 'dispatched')
    RETURNING ei.experiment_id, ei.item_id, ei.trial, ei.status, ei.throttled
    """
)

_INSERT_SCORES = text(
    """
    INSERT INTO scores (experiment_id, item_id, trial, name, value, comment, metadata, error)
    SELECT experiment_id, item_id, trial, name, value, comment, coalesce(metadata, '{}'::jsonb), error
    FROM jsonb_to_recordset(CAST(:payload AS jsonb)) AS s(
        experiment_id text, item_id text, trial int, name text, value float8, comment text,
        metadata jsonb, error text)
    ON CONFLICT (experiment_id, item_id, trial, name) DO NOTHING
    """
)

_BUMP_COUNTERS = text(
    """
    UPDATE experiments AS e SET done = e.done + c.done, errors = e.errors + c.errors,
        judge_cache_hits = e.judge_cache_hits + c.judge_hits,
        throttled = e.throttled + c.throttled,
        target_concurrency = coalesce(c.target_concurrency, e.target_concurrency)
    FROM jsonb_to_recordset(CAST(:payload AS jsonb)) AS c(
        id text, done int, errors int, judge_hits int, throttled int, target_concurrency int)
    WHERE e.id = c.id
    RETURNING e.id, e.total, e.done, e.errors, e.cache_hits, e.throttled, e.target_concurrency
    """
)


@dataclass(frozen=True)
class Progressed:
    experiment_id: str
    total: int
    done: int
    errors: int
    cache_hits: int = 0
    throttled: int = 0
    target_concurrency: int | None = None


def _item_row(result: EvalResult) -> dict[str, object]:
    return {
        "experiment_id": result.experiment_id,
        "item_id": result.item_id,
        "trial": result.trial,
        "status": result.status,
        "output": result.output,
        "error": result.error,
        "latency_ms": result.latency_ms,
        "total_ms": result.total_ms,
        "usage": result.usage.model_dump() if result.usage else None,
        "attempts": result.attempts,
        "worker_id": result.worker_id,
        "finished_at": result.finished_at.isoformat(),
        "throttled": result.throttled,
    }


async def store_results(session: AsyncSession, results: list[EvalResult]) -> list[Progressed]:
    """Record results; returns the new counters of every experiment that moved. Caller commits."""
    if not results:
        return []
    moved = (
        await session.execute(
            _UPDATE_ITEMS, {"payload": json.dumps([_item_row(r) for r in results], default=str)}
        )
    ).all()
    if not moved:
        return []
    moved_keys = {(row.experiment_id, row.item_id, row.trial) for row in moved}
    scores = [
        {
            "experiment_id": r.experiment_id,
            "item_id": r.item_id,
            "trial": r.trial,
            "name": s.name,
            "value": s.numeric,
            "comment": s.comment,
            "metadata": s.metadata,
            "error": s.error,
        }
        for r in results
        if (r.experiment_id, r.item_id, r.trial) in moved_keys
        for s in r.scores
    ]
    if scores:
        await session.execute(_INSERT_SCORES, {"payload": json.dumps(scores, default=str)})
    counters: dict[str, dict[str, int]] = {}
    for row in moved:
        entry = counters.setdefault(
            row.experiment_id, {"done": 0, "errors": 0, "judge_hits": 0, "throttled": 0}
        )
        entry["done"] += 1
        entry["errors"] += row.status == "error"
        entry["throttled"] += row.throttled
    for r in results:
        if (r.experiment_id, r.item_id, r.trial) in moved_keys:
            hits = sum((s.metadata or {}).get("judge_cache") == HIT for s in r.scores)
            counters[r.experiment_id]["judge_hits"] += hits
    concurrency = {  # the latest a worker reported for each experiment's target
        r.experiment_id: r.target_concurrency for r in results if r.target_concurrency is not None
    }
    payload = [{"id": k, **v, "target_concurrency": concurrency.get(k)} for k, v in counters.items()]
    bumped = (await session.execute(_BUMP_COUNTERS, {"payload": json.dumps(payload)})).all()
    return [
        Progressed(r.id, r.total, r.done, r.errors, r.cache_hits, r.throttled, r.target_concurrency)
        for r in bumped
    ]
