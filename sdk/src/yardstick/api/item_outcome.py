"""What became of one (item, trial): the one outcome shape from the eval worker to the report.

The worker's result message (:class:`~yardstick.api.eval_messages.EvalResult`), the items the
coordinator serves (``ExperimentItemOut``) and the rows read back from Postgres are this model plus
their own keys. Rules: an item either has an ``output`` scored by ``scores`` (each evaluator's
failure on its own score) or a ``failure`` (source ``target`` or ``platform``) and no scores;
``error`` is the failure's derived ``'Type: message'``.
"""

from __future__ import annotations

from typing import Any

from pydantic import Field

from yardstick.api.agent_messages import TokenUsage
from yardstick.api.evaluation import Evaluation
from yardstick.api.item_failure import CarriesFailure


class ItemOutcome(CarriesFailure):
    """The target's output, every item-level score, usage and latency, or why there are none."""

    output: dict[str, Any] | None = Field(default=None, description="The target's output")
    scores: list[Evaluation] = Field(default_factory=list, description="Every item-level evaluator's result")
    usage: TokenUsage | None = Field(default=None, description="Tokens the target reported")
    latency_ms: float | None = Field(default=None, description="Time spent in the target")
