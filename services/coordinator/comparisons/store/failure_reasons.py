"""Why an item failed a metric in one run, for a comparison's broken (and fixed) items
(``shared.analysis.broken_items.first_reason``). Read only for the listed items (a few hundred at
most), in one query per table."""

from __future__ import annotations

from sqlalchemy import select, tuple_
from sqlalchemy.ext.asyncio import AsyncSession

from shared.analysis import first_reason, with_reasons
from shared.db.models import ExperimentItem, Score
from yardstick.api.comparison_report import ItemChange


async def failure_reasons(
    session: AsyncSession, experiment_id: str, wanted: list[tuple[str, str]]
) -> dict[tuple[str, str], str | None]:
    """(item_id, metric) -> why ``experiment_id`` failed it (``first_reason`` over its trials)."""
    if not wanted:
        return {}
    item_ids = sorted({item_id for item_id, _ in wanted})
    failed = await session.execute(
        select(ExperimentItem.item_id, ExperimentItem.trial, ExperimentItem.error).where(
            ExperimentItem.experiment_id == experiment_id,
            ExperimentItem.item_id.in_(item_ids),
            ExperimentItem.status == "error",
        )
    )
    item_errors: dict[str, dict[int, str | None]] = {}
    for item_id, trial, error in failed:
        item_errors.setdefault(item_id, {})[trial] = error
    scores = await session.execute(
        select(Score.item_id, Score.name, Score.trial, Score.error, Score.comment).where(
            Score.experiment_id == experiment_id, tuple_(Score.item_id, Score.name).in_(wanted)
        )
    )
    score_reasons: dict[tuple[str, str], dict[int, str | None]] = {}
    for item_id, name, trial, error, comment in scores:
        score_reasons.setdefault((item_id, name), {})[trial] = error or comment
    return {
        (item_id, metric): first_reason(
            item_errors.get(item_id, {}), score_reasons.get((item_id, metric), {})
        )
        for item_id, metric in wanted
    }


async def with_failure_reasons(
    session: AsyncSession, experiment_id: str, changes: list[ItemChange]
) -> list[ItemChange]:
    """``changes`` with the reasons ``experiment_id`` gives for failing them."""
    reasons = await failure_reasons(session, experiment_id, [(c.item_id, c.metric) for c in changes])
    return with_reasons(changes, reasons)
