"""Pair two finished experiments in Postgres by (item_id, trial) into ``PairedColumns``.

The join runs in the database and every pair comes back in one row of arrays, one per column
(``_paired_rows``: no per-row Python), put in the baseline's item order by NumPy; per-pair metric
values are fetched for every metric in one round trip, as one array per metric and side
(``load_paired_metrics``).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np
import numpy.typing as npt
from sqlalchemy import and_, func, select, text
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import aliased

from services.coordinator.experiments.store.run_columns import (
    ColumnLoadError,
    item_order,
    metric_names,
    stored_run_scores,
    stream_rows,
)
from shared.analysis import FloatArray, GroupCoder, GroupColumn, PairedColumns, RunSide
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


_PAIR_COLUMNS = (
    "row_number() OVER (ORDER BY b.position, b.trial, b.item_id) - 1 AS row",
    "c.id IS NULL AS unmatched",
    "b.item_id",
    "b.trial",
    "b.status = 'ok' AS baseline_ok",
    "c.status = 'ok' AS candidate_ok",
    "b.latency_ms AS baseline_latency",
    "c.latency_ms AS candidate_latency",
)


def _paired_rows(keys: list[str]) -> tuple[Any, dict[str, str]]:
    """The baseline's items left-joined to the candidate's, as ONE row of arrays (asyncpg decodes
    arrays in C: no per-row Python, no ORM rows). The arrays come from one aggregate over the same
    rows, so they line up; ``row`` (0-based, in the baseline's item order) says where each entry
    belongs. Per key: whether the pair has it (the baseline's metadata, else the candidate's) and
    its value as JSON text (``GroupCoder.set_json_column`` decodes each distinct text once)."""
    params = {f"key_{index}": key for index, key in enumerate(keys)}
    columns = list(_PAIR_COLUMNS)
    for index in range(len(keys)):
        k = f":key_{index}"
        columns += [
            f"b.metadata ? {k} OR coalesce(c.metadata ? {k}, false) AS has_{index}",
            f"(CASE WHEN b.metadata ? {k} THEN b.metadata -> {k} ELSE c.metadata -> {k} END)::text"
            f" AS value_{index}",
        ]
    names = [column.rsplit(" ", 1)[-1].rsplit(".", 1)[-1] for column in columns]
    sql = f"""
    SELECT {", ".join(f"array_agg({name}) AS {name}" for name in names)}
    FROM (
        SELECT {", ".join(columns)}
        FROM experiment_items b
        LEFT JOIN experiment_items c
          ON c.experiment_id = :candidate AND c.item_id = b.item_id AND c.trial = b.trial
        WHERE b.experiment_id = :baseline
    ) pairs
    """
    return text(sql), params


def _in_order(values: list[Any] | None, order: npt.NDArray[np.intp], dtype: Any) -> Any:
    """An aggregated array as NumPy, in item order (None: NaN for floats, False for bools)."""
    array = np.array(values or [], dtype=dtype)
    return array[order]


async def load_paired_columns(
    session: AsyncSession, baseline: Experiment, candidate: Experiment, keys: Iterable[str]
) -> PairedColumns:
    """Pairs in the baseline's item order; per key, the baseline's metadata value if it has the
    key, else the candidate's. One statement reads every pair (``_paired_rows``): one snapshot."""
    keys = list(dict.fromkeys(keys))
    stmt, params = _paired_rows(keys)
    row = (await session.execute(stmt, {"baseline": baseline.id, "candidate": candidate.id, **params})).one()
    order = np.argsort(np.array(row.row or [], dtype=np.int64), kind="stable")
    unmatched = _in_order(row.unmatched, order, np.bool_)
    matched = np.flatnonzero(~unmatched)
    ids = row.item_id or []
    item_ids = [ids[i] for i in order]
    trials = _in_order(row.trial, order, np.int64)
    groups: dict[str, GroupColumn] = {}
    for index, key in enumerate(keys):
        coder = GroupCoder(matched.size)
        has = _in_order(getattr(row, f"has_{index}"), order, np.bool_)[matched]
        values = getattr(row, f"value_{index}")
        coder.set_json_column(has, [values[i] for i in order[matched]])
        groups[key] = coder.column()
    return PairedColumns(
        baseline=await run_side(session, baseline),
        candidate=await run_side(session, candidate),
        baseline_ok=_in_order(row.baseline_ok, order, np.bool_)[matched],
        candidate_ok=_in_order(row.candidate_ok, order, np.bool_)[matched],
        baseline_latency=_in_order(row.baseline_latency, order, np.float64)[matched],
        candidate_latency=_in_order(row.candidate_latency, order, np.float64)[matched],
        groups=groups,
        item_ids=[item_ids[i] for i in matched],
        trials=trials[matched],
        unmatched_baseline=[
            ItemKey(item_id=item_ids[i], trial=int(trials[i])) for i in np.flatnonzero(unmatched)
        ],
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
