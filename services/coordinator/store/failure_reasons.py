"""Why an item failed a metric in one run, for a comparison's broken (and fixed) items: the item's
own error when it did not run, else the evaluator's error, else its comment. Read only for the
listed items (a few hundred at most), in one query per table."""

from __future__ import annotations

from sqlalchemy import select, tuple_
from sqlalchemy.ext.asyncio import AsyncSession

from shared.analysis.broken_items import with_reasons
from shared.contracts.comparison_report import ItemChange
from shared.db.models import ExperimentItem, Score


async def failure_reasons(
    session: AsyncSession, experiment_id: str, wanted: list[tuple[str, str]]
) -> dict[tuple[str, str], str | None]:
    """(item_id, metric) -> the first reason over the item's trials in ``experiment_id``."""
    if not wanted:
        return {}
    item_ids = sorted({item_id for item_id, _ in wanted})
    items = await session.execute(
        select(ExperimentItem.item_id, ExperimentItem.error)
        .where(
            ExperimentItem.experiment_id == experiment_id,
            ExperimentItem.item_id.in_(item_ids),
            ExperimentItem.status != "ok",
        )
        .order_by(ExperimentItem.trial)
    )
    item_errors: dict[str, str] = {}
    for item_id, error in items:
        item_errors.setdefault(item_id, error or "the item failed")
    scores = await session.execute(
        select(Score.item_id, Score.name, Score.error, Score.comment)
        .where(Score.experiment_id == experiment_id, tuple_(Score.item_id, Score.name).in_(wanted))
        .order_by(Score.trial)
    )
    out: dict[tuple[str, str], str | None] = {}
    for item_id, name, error, comment in scores:
        if out.get((item_id, name)) is None:
            out[item_id, name] = error or comment
    for item_id, metric in wanted:
        if item_id in item_errors:
            out[item_id, metric] = f"the item did not run: {item_errors[item_id]}"
    return out


async def with_failure_reasons(
    session: AsyncSession, experiment_id: str, changes: list[ItemChange]
) -> list[ItemChange]:
    """``changes`` with the reasons ``experiment_id`` gives for failing them."""
    reasons = await failure_reasons(session, experiment_id, [(c.item_id, c.metric) for c in changes])
    return with_reasons(changes, reasons)
