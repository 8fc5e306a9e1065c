"""Stream one experiment's rows from Postgres into compact columns (``RunColumns``).

Rows come through a server-side cursor in chunks of ``CHUNK_ROWS``; only the small columns are
selected (never inputs, outputs or score comments). Item order is (position, trial, item_id)
in every query, so the base columns and each metric's values line up.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Iterable, Sequence
from typing import Any

import numpy as np
from sqlalchemy import Select, Text, cast, func, select, text
from sqlalchemy.exc import DBAPIError
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import aliased

from shared.analysis import FloatArray, GroupCoder, RunColumns, UsageTotals
from shared.db.models import Experiment, ExperimentItem, Score
from yardstick.api.agent_messages import TokenUsage
from yardstick.api.evaluation import Evaluation

CHUNK_ROWS = 5_000

log = logging.getLogger(__name__)


class ColumnLoadError(RuntimeError):
    """The experiment's rows changed while they were being read (it was not finished)."""


async def refresh_statistics(session: AsyncSession) -> None:
    """ANALYZE the item and score tables, in a transaction of its own, before a run is read.

    Right after a run, the planner's statistics do not know its experiment id yet: with only a
    few experiments in the tables it then estimates one row per experiment and joins items to
    scores with a nested loop that scans every score of the run for every item. Measured on
    10,000 items: 11 s per metric and 56 s per paired metric, against 0.11 s and 0.15 s after an
    ANALYZE, which took 0.7 s (two copies of a 10,000-item run of the memory benchmark, read with
    the statistics gathered before they were written). A failure (e.g. not the tables'
    owner) is logged and the run is read anyway.

    What the planner needs is the experiment ids and their share of the rows, so the sample is
    3,000 rows per table (statistics target 10) instead of 30,000: 0.04 s instead of 0.3 s on the
    latency benchmark's tables, time every finalization (and a run's wall time) used to pay.
    """
    try:
        await session.execute(text("SET LOCAL default_statistics_target = 10"))
        await session.execute(text("ANALYZE experiment_items, scores"))
        await session.commit()
    except DBAPIError as exc:
        await session.rollback()
        log.warning("ANALYZE before reading a run failed (%s); queries may plan badly", exc.orig)


async def stream_rows(session: AsyncSession, stmt: Select[Any]) -> AsyncIterator[Sequence[Any]]:
    """The rows of ``stmt`` in chunks (sequences of row tuples), through a server-side cursor."""
    result = await session.stream(stmt.execution_options(yield_per=CHUNK_ROWS))
    async for part in result.partitions(CHUNK_ROWS):
        yield part


def item_order(item: type[ExperimentItem] | Any) -> tuple[Any, Any, Any]:
    return item.position, item.trial, item.item_id


async def count_items(session: AsyncSession, experiment_id: str) -> int:
    stmt = select(func.count()).where(ExperimentItem.experiment_id == experiment_id)
    return int((await session.execute(stmt)).scalar_one())


_METRIC_NAMES = text(
    """
    WITH RECURSIVE names(name) AS (
        (SELECT name FROM scores WHERE experiment_id = :experiment_id ORDER BY name LIMIT 1)
        UNION ALL
        SELECT (SELECT s.name FROM scores s WHERE s.experiment_id = :experiment_id AND s.name > n.name
                ORDER BY s.name LIMIT 1)
        FROM names n WHERE n.name IS NOT NULL
    )
    SELECT name FROM names WHERE name IS NOT NULL
    """
)
"""The distinct names by skipping through ``ix_scores_exp_name``: one index probe per name, where
``SELECT DISTINCT`` read the index entry of every score (20 names of two 10,000-item runs: 66 ms
a run against 0.2 ms, EXPLAIN ANALYZE on ``bench/comparisons.py``'s data)."""


async def metric_names(session: AsyncSession, experiment_id: str) -> list[str]:
    rows = await session.execute(_METRIC_NAMES, {"experiment_id": experiment_id})
    return sorted(rows.scalars().all())


def stored_run_scores(experiment: Experiment) -> list[Evaluation]:
    """The run-level results saved with the experiment's aggregates."""
    return list(experiment.aggregates.run_scores) if experiment.aggregates else []


def metadata_columns(item: type[ExperimentItem] | Any, keys: Sequence[str]) -> list[Any]:
    """Per key: does the metadata have it, and its value as JSON text (``GroupCoder.set_json``
    decodes each distinct text once; the driver's jsonb decoding of every cell cost a third of a
    comparison's load)."""
    out: list[Any] = []
    for key in keys:
        out += [item.item_metadata.has_key(key), cast(item.item_metadata[key], Text)]
    return out


def set_groups(coders: Sequence[GroupCoder], row: int, cells: Sequence[Any]) -> None:
    for index, coder in enumerate(coders):
        coder.set_json(row, bool(cells[2 * index]), cells[2 * index + 1])


async def load_run_columns(session: AsyncSession, experiment: Experiment, keys: Iterable[str]) -> RunColumns:
    """The base columns of a finished experiment (metadata columns for ``keys``)."""
    keys = list(dict.fromkeys(keys))
    size = await count_items(session, experiment.id)
    ok = np.zeros(size, dtype=np.bool_)
    latency = np.full(size, np.nan, dtype=np.float64)
    coders = [GroupCoder(size) for _ in keys]
    usage = UsageTotals()
    stmt = (
        select(
            ExperimentItem.status,
            ExperimentItem.latency_ms,
            ExperimentItem.usage,
            *metadata_columns(ExperimentItem, keys),
        )
        .where(ExperimentItem.experiment_id == experiment.id)
        .order_by(*item_order(ExperimentItem))
    )
    row = 0
    async for part in stream_rows(session, stmt):
        if row + len(part) > size:
            raise ColumnLoadError(f"experiment {experiment.id} gained items while being read; retry")
        for status, latency_ms, item_usage, *cells in part:
            ok[row] = status == "ok"
            if latency_ms is not None:
                latency[row] = latency_ms
            if item_usage:
                usage.add(TokenUsage.model_validate(item_usage))
            set_groups(coders, row, cells)
            row += 1
    if row != size:
        raise ColumnLoadError(f"experiment {experiment.id} lost items while being read; retry")
    return RunColumns(
        experiment_id=experiment.id,
        name=experiment.name,
        ok=ok,
        latency=latency,
        groups={key: coder.column() for key, coder in zip(keys, coders, strict=True)},
        metric_names=await metric_names(session, experiment.id),
        usage=usage,
        run_scores=stored_run_scores(experiment),
    )


def score_join(item: type[ExperimentItem] | Any, metric: str) -> tuple[Any, Any]:
    """An alias of ``scores`` and the condition joining ``item``'s row of ``metric`` to it."""
    score = aliased(Score)
    on = (
        (score.experiment_id == item.experiment_id)
        & (score.item_id == item.item_id)
        & (score.trial == item.trial)
        & (score.name == metric)
    )
    return score, on


_RUN_METRICS = text(
    """
    WITH items AS (
        SELECT item_id, trial, row_number() OVER (ORDER BY position, trial, item_id) - 1 AS row
        FROM experiment_items
        WHERE experiment_id = :experiment
    )
    SELECT s.name, array_agg(i.row) AS rows, array_agg(s.value) AS values,
           (SELECT count(*) FROM items) AS size
    FROM scores s
    JOIN items i ON i.item_id = s.item_id AND i.trial = s.trial
    WHERE s.experiment_id = :experiment AND s.name = ANY(CAST(:metrics AS text[]))
    GROUP BY s.name
    """
)


async def load_metrics(
    session: AsyncSession, experiment_id: str, metrics: Sequence[str], size: int
) -> dict[str, FloatArray]:
    """Each metric's value for each of the experiment's ``size`` items, in item order (NaN = no
    value), in one query: Postgres groups a metric's values into one array with their item rows
    (one metric at a time through the ORM cost 0.5 s per metric on 50,000 items)."""
    out = {m: np.full(size, np.nan, dtype=np.float64) for m in metrics}
    if metrics:
        params = {"experiment": experiment_id, "metrics": list(metrics)}
        for name, rows, values, seen in (await session.execute(_RUN_METRICS, params)).all():
            if seen != size:
                what = "gained" if seen > size else "lost"
                raise ColumnLoadError(f"experiment {experiment_id} {what} items while being read; retry")
            out[name][np.asarray(rows, dtype=np.int64)] = np.asarray(values, dtype=np.float64)
    return out
