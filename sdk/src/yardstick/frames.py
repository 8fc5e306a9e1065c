"""pandas data frames of items and experiments, built only when pandas is installed (it is not a
dependency of Yardstick: ``pip install pandas`` to use ``to_pandas()``)."""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from yardstick.errors import MissingDependency

if TYPE_CHECKING:
    import pandas as pd

    from yardstick.api.experiments import ExperimentItemOut, ExperimentOut


def _pandas() -> Any:
    try:
        return importlib.import_module("pandas")
    except ImportError as exc:
        raise MissingDependency(
            "to_pandas() needs pandas, which Yardstick does not install: `pip install pandas`"
        ) from exc


def items_frame(items: Sequence[ExperimentItemOut]) -> pd.DataFrame:
    """One row per (item, trial); each score's value in a column named after it."""
    pandas = _pandas()
    rows: list[dict[str, Any]] = []
    for item in items:
        row: dict[str, Any] = item.model_dump(exclude={"scores"})
        for score in item.scores:
            row[score.name] = score.value
        rows.append(row)
    return pandas.DataFrame(rows)


def experiments_frame(experiments: Sequence[ExperimentOut]) -> pd.DataFrame:
    """One row per experiment, with its counts, pass rate and every metric's mean."""
    pandas = _pandas()
    rows: list[dict[str, Any]] = []
    for exp in experiments:
        aggregates = exp.aggregates
        row: dict[str, Any] = {
            "id": exp.id,
            "name": exp.name,
            "status": exp.status,
            "dataset": exp.dataset,
            "dataset_version": exp.dataset_version,
            "target": exp.target.kind,
            "total": exp.progress.total,
            "done": exp.progress.done,
            "errors": exp.progress.errors,
            "pass_rate": aggregates.pass_rate if aggregates else None,
            "regression": exp.regression,
            "created_at": exp.created_at,
            "completed_at": exp.completed_at,
        }
        if aggregates is not None:
            row |= {f"mean.{metric}": agg.mean for metric, agg in aggregates.metrics.items()}
        rows.append(row)
    return pandas.DataFrame(rows)
