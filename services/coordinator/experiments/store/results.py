"""Write a batch of results idempotently, in one statement (one round trip per batch): an UPDATE
of the items, an INSERT of their scores and an UPDATE of the experiments' counters, chained by
common table expressions. The rows' values come from ``shared.db.outcome_rows`` (the item's outcome
with its typed failure, each score with its evaluator's).

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

from shared.db.outcome_rows import as_json, outcome_row, score_row
from shared.evaluators.judge_cache import HIT
from yardstick.api.eval_messages import EvalResult

_STORE_BATCH = text(
    """
    WITH moved AS (
        UPDATE experiment_items AS ei
        SET status = v.status, output = v.output, error = v.error, failure = v.failure,
            latency_ms = v.latency_ms, total_ms = v.total_ms, usage = v.usage, attempts = v.attempts,
            worker_id = v.worker_id, finished_at = v.finished_at, throttled = v.throttled,
            code_fingerprint = coalesce(v.code_fingerprint, ei.code_fingerprint)
        FROM jsonb_to_recordset(CAST(:items AS jsonb)) AS v(
            experiment_id text, item_id text, trial int, status text, output jsonb, error text,
            failure jsonb, latency_ms float8, total_ms float8, usage jsonb, attempts int, worker_id text,
            finished_at timestamptz, throttled int, judge_hits int, code_fingerprint text)
        WHERE ei.experiment_id = v.experiment_id AND ei.item_id = v.item_id AND ei.trial = v.trial
          AND ei.status IN ('pending', 'dispatched')
        RETURNING ei.experiment_id, ei.item_id, ei.trial, ei.status, ei.throttled, v.judge_hits
    ),
    scored AS (
        INSERT INTO scores (experiment_id, item_id, trial, name, value, comment, metadata, error, failure)
        SELECT s.experiment_id, s.item_id, s.trial, s.name, s.value, s.comment,
               coalesce(s.score_metadata, '{}'::jsonb), s.error, s.failure
        FROM jsonb_to_recordset(CAST(:scores AS jsonb)) AS s(
            experiment_id text, item_id text, trial int, name text, value float8, comment text,
            score_metadata jsonb, error text, failure jsonb)
        JOIN moved AS m USING (experiment_id, item_id, trial)
        ON CONFLICT (experiment_id, item_id, trial, name) DO NOTHING
    ),
    counts AS (
        SELECT experiment_id AS id, count(*) AS done, count(*) FILTER (WHERE status = 'error') AS errors,
               sum(judge_hits) AS judge_hits, sum(throttled) AS throttled
        FROM moved GROUP BY experiment_id
    )
    UPDATE experiments AS e SET done = e.done + c.done, errors = e.errors + c.errors,
        judge_cache_hits = e.judge_cache_hits + c.judge_hits,
        throttled = e.throttled + c.throttled,
        target_concurrency = coalesce(r.target_concurrency, e.target_concurrency)
    FROM counts AS c
    LEFT JOIN jsonb_to_recordset(CAST(:reported AS jsonb)) AS r(id text, target_concurrency int)
        USING (id)
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
        **outcome_row(result),
        "total_ms": result.total_ms,
        "attempts": result.attempts,
        "worker_id": result.worker_id,
        "finished_at": result.finished_at.isoformat(),
        "throttled": result.throttled,
        "judge_hits": sum((s.metadata or {}).get("judge_cache") == HIT for s in result.scores),
        "code_fingerprint": result.code_fingerprint,
    }


def _score_rows(results: list[EvalResult]) -> list[dict[str, object]]:
    """Every score of the batch; the statement keeps only those of items that moved."""
    return [
        {"experiment_id": r.experiment_id, "item_id": r.item_id, "trial": r.trial, **score_row(s)}
        for r in results
        for s in r.scores
    ]


async def store_results(session: AsyncSession, results: list[EvalResult]) -> list[Progressed]:
    """Record results in one statement; returns the new counters of every experiment that moved
    (none for a batch already stored: the write is idempotent). Caller commits."""
    if not results:
        return []
    reported = {  # the latest a worker reported for each experiment's target
        r.experiment_id: r.target_concurrency for r in results if r.target_concurrency is not None
    }
    params = {
        "items": json.dumps([_item_row(r) for r in results], default=as_json),
        "scores": json.dumps(_score_rows(results), default=as_json),
        "reported": json.dumps([{"id": k, "target_concurrency": v} for k, v in reported.items()]),
    }
    bumped = (await session.execute(_STORE_BATCH, params)).all()
    return [
        Progressed(r.id, r.total, r.done, r.errors, r.cache_hits, r.throttled, r.target_concurrency)
        for r in bumped
    ]
