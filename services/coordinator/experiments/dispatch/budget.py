"""An experiment's budget (``max_cost``): checked by the dispatcher on each scan against the spend
its results recorded (target and judge tokens, priced with ``LLM_PRICES``).

When the spend reaches the budget nothing more is dispatched: the pending items become errors
"not run: budget exhausted …", tasks already in flight finish (so the spend can pass the budget by
what they cost), and the finalizer scores and aggregates what finished and ends the run
``budget_exhausted``. Tokens of a model without a price cost nothing here: a budget only sees
priced models.
"""

from __future__ import annotations

import logging
from collections.abc import Collection

from sqlalchemy.ext.asyncio import AsyncSession

from services.coordinator.experiments.store import dispatch_rows
from services.coordinator.experiments.store.spend import experiment_spend
from shared.db.models import Experiment
from shared.llm.prices import configured_prices

log = logging.getLogger(__name__)


def budget_reason(spent: float, budget: float, currency: str) -> str:
    return (
        f"not run: budget exhausted (spent {spent:.4f} {currency} of max_cost {budget:g} {currency}; "
        "tasks in flight finished, nothing more was dispatched)"
    )


async def stop_if_spent(session: AsyncSession, experiment: Experiment, keep: Collection[int] = ()) -> bool:
    """True (and the pending items stopped) when the experiment's spend has reached its budget.
    ``keep``: row ids published (or being published) whose rows are not marked dispatched yet."""
    budget = experiment.config.max_cost
    if budget is None:
        return False
    spend = await experiment_spend(session, experiment.id, configured_prices())
    if spend.cost is None or spend.cost < budget:
        return False
    stopped = await dispatch_rows.stop_for_budget(
        session, experiment.id, budget_reason(spend.cost, budget, spend.currency), keep
    )
    log.warning(
        "budget exhausted: dispatching stopped",
        extra={"experiment_id": experiment.id, "spent": spend.cost, "max_cost": budget, "not_run": stopped},
    )
    return True
