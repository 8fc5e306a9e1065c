"""Yardstick's evaluators inside Langfuse's ``run_experiment``.

langfuse 5.x keeps an evaluator's result only when it is a ``dict`` or its own
``langfuse.experiment.Evaluation``; anything else (Yardstick's ``Evaluation`` included) is dropped
without a word. :func:`langfuse_evaluator` wraps a registered evaluator so that it returns Langfuse's
class, with the same name, value, comment and metadata a direct call gives. A result without a value
(not measured, or an evaluator failure) is not sent: Langfuse has no "not measured", and a made-up
number would be worse than a gap; the reason is logged.

    from langfuse import Langfuse
    from shared.evaluators.langfuse_interop import langfuse_evaluator

    Langfuse().run_experiment(
        name="nightly",
        data=items,
        task=my_task,
        evaluators=[langfuse_evaluator("exact_match", field="answer")],
    )
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Any

from shared.evaluators.loading import process_registry
from shared.evaluators.running import run_item_evaluators
from yardstick.api.evaluation import EvaluatorSpec

log = logging.getLogger(__name__)

LangfuseEvaluator = Callable[..., Awaitable[list[Any]]]


def langfuse_evaluator(name: str, **args: Any) -> LangfuseEvaluator:
    """The registered item evaluator ``name`` (with ``args``, checked now) in Langfuse's shape."""
    from langfuse.experiment import Evaluation as LangfuseEvaluation

    spec = EvaluatorSpec(name=name, args=args)
    registry = process_registry()
    registry.validate([spec])

    async def evaluate(
        *, input: Any, output: Any, expected_output: Any = None, metadata: Any = None, **_: Any
    ) -> list[Any]:
        results = await run_item_evaluators(
            registry, [spec], input=input, output=output, expected_output=expected_output, metadata=metadata
        )
        kept = []
        for result in results:
            if result.value is None:
                log.info(
                    "not sent to Langfuse (no value)",
                    extra={"evaluator": name, "reason": result.error or result.comment},
                )
                continue
            kept.append(
                LangfuseEvaluation(
                    name=result.name,
                    value=result.value,
                    comment=result.comment,
                    metadata=dict(result.metadata),
                )
            )
        return kept

    evaluate.__name__ = evaluate.__qualname__ = name
    return evaluate
