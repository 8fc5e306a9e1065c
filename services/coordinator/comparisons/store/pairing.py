"""Pair two finished experiments in Postgres by (item_id, trial) into ``PairedColumns``.

The join runs in the database; rows stream in the baseline's item order. Only unmatched items'
ids reach Python (they are listed in the report); per-pair metric values are fetched for every
metric in one round trip, as one array per metric and side (``load_paired_metrics``).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np
from sqlalchemy import and_, func, select, text
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import aliased

from services.coordinator.experiments.store.run_columns import (
    ColumnLoadError,
    count_items,
    item_order,
    metadata_columns,
    metric_names,
    stored_run_scores,
    stream_rows,
)
from shared.analysis import FloatArray, GroupCoder, PairedColumns, RunSide
from shared.db.models import Experiment, ExperimentItem
from yardstick.api.comparison_report import ItemKey


async def run_side(session: AsyncSession, experiment: Experiment) -> RunSide:
    stmt = select(
        func.count().filter(ExperimentItem.status != "ok"),
        func.coalesce(func.bool_or(ExperimentItem.latency_ms.is_not(None)), False),
    ).where(ExperimentItem.experiment_id == experiment.id)
    errors, has_latency = (await session.execute(stmt)).one()
    return RunSide(
        experiment_id=experiment.id,
        name=experiment.name,
        error_count=int(errors),
        metric_names=set(await metric_names(session, experiment.id)),
        has_latency=bool(has_latency),
        run_scores=stored_run_scores(experiment),
    )


def _aliases() -> tuple[Any, Any]:
    return aliased(ExperimentItem), aliased(ExperimentItem)


def _same_item(b: Any, c: Any, candidate_id: str) -> Any:
    return and_(c.experiment_id == candidate_id, c.item_id == b.item_id, c.trial == b.trial)


async def load_paired_columns(
    session: AsyncSession, baseline: Experiment, candidate: Experiment, keys: Iterable[str]
) -> PairedColumns:
    """Pairs in the baseline's item order; per key, the baseline's metadata value if it has the
    key, else the candidate's."""
    keys = list(dict.fromkeys(keys))
    b, c = _aliases()
    size = await count_items(session, baseline.id)
    ok = np.zeros((2, size), dtype=np.bool_)
    latency = np.full((2, size), np.nan, dtype=np.float64)
    coders = [GroupCoder(size) for _ in keys]
    unmatched_baseline: list[ItemKey] = []
    item_ids: list[str] = []
    trials = np.zeros(size, dtype=np.int64)
    stmt = (
        select(
            c.id.is_(None),
            b.item_id,
            b.trial,
            b.status,
            c.status,
            b.latency_ms,
            c.latency_ms,
            *metadata_columns(b, keys),
            *metadata_columns(c, keys),
        )
        .select_from(b)
        .outerjoin(c, _same_item(b, c, candidate.id))
        .where(b.experiment_id == baseline.id)
        .order_by(*item_order(b))
    )
    row = 0
    async for part in stream_rows(session, stmt):
        for unmatched, item_id, trial, b_status, c_status, b_lat, c_lat, *meta in part:
            if unmatched:
                unmatched_baseline.append(ItemKey(item_id=item_id, trial=trial))
                continue
            if row >= size:
                raise ColumnLoadError(f"experiment {baseline.id} gained items while being read; retry")
            item_ids.append(item_id)
            trials[row] = trial
            ok[:, row] = (b_status == "ok", c_status == "ok")
            latency[:, row] = (b_lat, c_lat)  # None becomes NaN
            b_meta, c_meta = meta[: 2 * len(keys)], meta[2 * len(keys) :]
            for index, coder in enumerate(coders):
                b_has, b_value = b_meta[2 * index : 2 * index + 2]
                c_has, c_value = c_meta[2 * index : 2 * index + 2]
                if b_has:
                    coder.set_json(row, True, b_value)
                else:
                    coder.set_json(row, bool(c_has), c_value)
            row += 1
    groups = {key: coder.column() for key, coder in zip(keys, coders, strict=True)}
    for column in groups.values():
        column.codes = column.codes[:row].copy()
    return PairedColumns(
        baseline=await run_side(session, baseline),
        candidate=await run_side(session, candidate),
        baseline_ok=ok[0, :row].copy(),
        candidate_ok=ok[1, :row].copy(),
        baseline_latency=latency[0, :row].copy(),
        candidate_latency=latency[1, :row].copy(),
        groups=groups,
        item_ids=item_ids,
        trials=trials[:row].copy(),
        unmatched_baseline=unmatched_baseline,
        unmatched_candidate=await _unmatched_candidate(session, baseline.id, candidate.id),
    )


async def _unmatched_candidate(session: AsyncSession, baseline_id: str, candidate_id: str) -> list[ItemKey]:
    c, b = _aliases()
    stmt = (
        select(c.item_id, c.trial)
        .where(c.experiment_id == candidate_id)
        .where(~select(b.id).where(_same_item(c, b, baseline_id)).exists())
        .order_by(*item_order(c))
    )
    out: list[ItemKey] = []
    async for part in stream_rows(session, stmt):
        out += [ItemKey(item_id=item_id, trial=trial) for item_id, trial in part]
    return out


_PAIRED_METRICS = text(
    """
    SELECT s.experiment_id = :baseline AS is_baseline, s.name,
           array_agg(p.row) AS rows, array_agg(s.value) AS values, max(p.n_pairs) AS n_pairs
    FROM scores s
    JOIN (
        SELECT b.item_id, b.trial,
               row_number() OVER (ORDER BY b.position, b.trial, b.item_id) - 1 AS row,
               count(*) OVER () AS n_pairs
        FROM experiment_items b
        JOIN experiment_items c
          ON c.experiment_id = :candidate AND c.item_id = b.item_id AND c.trial = b.trial
        WHERE b.experiment_id = :baseline
    ) p ON p.item_id = s.item_id AND p.trial = s.trial
    WHERE s.experiment_id IN (:baseline, :candidate) AND s.name = ANY(CAST(:metrics AS text[]))
    GROUP BY 1, 2
    """
)
"""The pairs are a subquery, not a CTE: the planner then knows they are 10,000 rows and hashes them,
streaming the scores into a hash aggregate (40 groups for 20 metrics). As a CTE it guessed the join
at 0.5 % of the scores, hashed the 392,000 scores of two 10,000-item runs instead, spilling that
hash and then the sort for the grouping to disk: EXPLAIN ANALYZE 4.6-9.6 s against 1.8-2.2 s on
``bench/comparisons.py``'s data (Nov 2026, load average 12 on 2 cores)."""


async def load_paired_metrics(
    session: AsyncSession, baseline_id: str, candidate_id: str, metrics: list[str], n_pairs: int
) -> dict[str, tuple[FloatArray, FloatArray]]:
    """(baseline, candidate) values of each metric per pair, in pair order (NaN = no value), for
    ``n_pairs`` pairs, in one query: Postgres groups each side's values of a metric into one array,
    with the pair rows they belong to."""
    out = {m: np.full((2, n_pairs), np.nan, dtype=np.float64) for m in metrics}
    if metrics:
        params = {"baseline": baseline_id, "candidate": candidate_id, "metrics": metrics}
        for is_baseline, name, rows, values, seen in (await session.execute(_PAIRED_METRICS, params)).all():
            if seen != n_pairs:
                raise ColumnLoadError(
                    f"experiments {baseline_id}/{candidate_id} changed while being read; retry"
                )
            index = np.asarray(rows, dtype=np.int64)
            out[name][0 if is_baseline else 1, index] = np.asarray(values, dtype=np.float64)
    return {m: (pair[0].copy(), pair[1].copy()) for m, pair in out.items()}
