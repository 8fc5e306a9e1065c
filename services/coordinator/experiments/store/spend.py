"""The tokens an experiment's LLM calls used, per model and role, read back from what the results
recorded: the target's usage on each item (its model when the target says it) and each judge
score's ``usage`` and ``judge_model``. Items whose output was recorded earlier (a rescore, an
output-cache hit) called no target in this run and count nothing; judge verdicts from the judge
cache record zero tokens. Priced with ``LLM_PRICES`` by :func:`shared.llm.prices.spend_of`."""

from __future__ import annotations

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncSession

from shared.llm.prices import UsageRow, spend_of
from yardstick.api.spend import PriceTable, Spend

_ITEM_FILTER = "AND item_id = :item_id AND trial = :trial"

_TARGET = """
    SELECT usage->>'model' AS model, count(*) AS calls,
           sum(coalesce((usage->>'input_tokens')::bigint, 0)) AS input_tokens,
           sum(coalesce((usage->>'output_tokens')::bigint, 0)) AS output_tokens
    FROM experiment_items
    WHERE experiment_id = :experiment_id AND usage IS NOT NULL AND recorded IS NULL {item}
    GROUP BY 1
"""

_JUDGES = """
    SELECT metadata->>'judge_model' AS model,
           sum(coalesce((metadata->>'llm_requests')::bigint, 0)) AS calls,
           sum(coalesce((metadata->'usage'->>'input_tokens')::bigint, 0)) AS input_tokens,
           sum(coalesce((metadata->'usage'->>'output_tokens')::bigint, 0)) AS output_tokens
    FROM scores
    WHERE experiment_id = :experiment_id AND metadata ? 'judge_model'
      AND jsonb_typeof(metadata->'usage') = 'object' {item}
    GROUP BY 1
"""


async def usage_rows(
    session: AsyncSession, experiment_id: str, item: tuple[str, int] | None = None
) -> list[UsageRow]:
    """Tokens per (role, model) of the experiment, or of one (item, trial)."""
    params: dict[str, object] = {"experiment_id": experiment_id}
    where = ""
    if item is not None:
        params |= {"item_id": item[0], "trial": item[1]}
        where = _ITEM_FILTER
    rows: list[UsageRow] = []
    for role, sql in (("target", _TARGET), ("judge", _JUDGES)):
        for r in (await session.execute(text(sql.format(item=where)), params)).all():
            rows.append(UsageRow(role, r.model, int(r.calls), int(r.input_tokens), int(r.output_tokens)))  # type: ignore[arg-type]
    return [r for r in rows if r.calls or r.input_tokens or r.output_tokens]


async def experiment_spend(
    session: AsyncSession, experiment_id: str, prices: PriceTable, item: tuple[str, int] | None = None
) -> Spend:
    """What the experiment (or one of its items) spent, priced with ``prices``."""
    return spend_of(await usage_rows(session, experiment_id, item), prices)


async def recorded_spend(session: AsyncSession, experiment_id: str, prices: PriceTable) -> Spend | None:
    """What the experiment spent; None when none of its calls recorded tokens (nothing to show)."""
    spend = await experiment_spend(session, experiment_id, prices)
    return spend if spend.by_model else None
