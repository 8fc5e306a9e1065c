"""Running evaluators from a registry: failures are recorded with their story, never raised.

An evaluator that raises (or is unknown, or refuses its arguments) becomes one
:class:`~yardstick.api.evaluation.Evaluation` with value None and ``failure`` an
:class:`~yardstick.api.item_failure.ItemFailure` of source ``evaluator`` (type, message,
traceback, the evaluator's name and version). :func:`run_item_evaluators` is the one way an item
(an experiment's, a trace's, a scored file's line) is scored.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
from dataclasses import dataclass
from typing import Any

from shared.evaluators.arguments import validate_arguments
from shared.evaluators.item_results import coerce_evaluation
from shared.evaluators.registry import EvaluatorRegistry, RegisteredEvaluator
from yardstick.api.evaluation import Evaluation, EvaluatorSpec
from yardstick.api.item_failure import ItemFailure

log = logging.getLogger(__name__)


def failure(name: str, exc: BaseException, version: str | None = None) -> Evaluation:
    """The record of evaluator ``name`` failing with ``exc``."""
    story = ItemFailure.of("evaluator", exc, evaluator=name, evaluator_version=version)
    return Evaluation(
        name=name, value=None, comment="evaluator failed", failure=story, evaluator_version=version
    )


def _as_list(result: Any, entry: RegisteredEvaluator) -> list[Evaluation]:
    if result is None:
        return [Evaluation(name=entry.name, value=None, comment="evaluator returned nothing")]
    items = result if isinstance(result, list) else [result]
    return [
        coerce_evaluation(item, entry.name).model_copy(update={"evaluator_version": entry.version})
        for item in items
    ]


async def _call(entry: RegisteredEvaluator, kwargs: dict[str, Any]) -> list[Evaluation]:
    result = entry.fn(**kwargs)
    if inspect.isawaitable(result):
        result = await result
    return _as_list(result, entry)


@dataclass(frozen=True)
class _Prepared:
    """One evaluator call with its validated arguments; running it records failures."""

    spec: EvaluatorSpec
    entry: RegisteredEvaluator
    kwargs: dict[str, Any]

    def _failed(self, exc: Exception) -> list[Evaluation]:
        log.warning("evaluator %s failed: %s", self.spec.name, exc, exc_info=True)
        return [failure(self.spec.name, exc, self.entry.version)]

    def run_sync(self) -> list[Evaluation]:
        try:
            return _as_list(self.entry.fn(**self.kwargs), self.entry)
        except Exception as exc:  # an evaluator must never crash its caller
            return self._failed(exc)

    async def run_async(self) -> list[Evaluation]:
        try:
            return await _call(self.entry, self.kwargs)
        except Exception as exc:  # an evaluator must never crash its caller
            return self._failed(exc)

    @property
    def is_async(self) -> bool:
        return inspect.iscoroutinefunction(self.entry.fn)


def _prepare(
    registry: EvaluatorRegistry, spec: EvaluatorSpec, given: dict[str, Any]
) -> _Prepared | Evaluation:
    """The call to make, or the failure record of an unknown evaluator or refused arguments."""
    try:
        entry = registry.get(spec.name, "item")
        args = validate_arguments(spec.name, entry.arguments, spec.args)
    except Exception as exc:
        log.warning("evaluator %s refused: %s", spec.name, exc)
        found = registry.find(spec.name)
        return failure(spec.name, exc, found.version if found else None)
    return _Prepared(spec, entry, {**args, **given})  # the item's own values win over same-named args


async def run_item_evaluators(
    registry: EvaluatorRegistry,
    specs: list[EvaluatorSpec],
    *,
    input: Any,
    output: Any,
    expected_output: Any,
    metadata: dict[str, Any] | None,
) -> list[Evaluation]:
    """Run every item-level evaluator, in spec order; failures are recorded, never raised.

    The synchronous ones (CPU work: parsing, matching) run together in one worker thread, so a
    process serving hundreds of concurrent calls keeps its event loop free, except those registered
    ``inline`` (cheap, bounded), which run right here; async ones (judges, which wait on a model) are
    awaited on the loop."""
    given = {"input": input, "output": output, "expected_output": expected_output, "metadata": metadata or {}}
    prepared = [_prepare(registry, spec, given) for spec in specs]
    sync = [p for p in prepared if isinstance(p, _Prepared) and not p.is_async]
    done = {id(p): p.run_sync() for p in sync if p.entry.inline}
    offloaded = [p for p in sync if not p.entry.inline]
    if offloaded:
        done |= await asyncio.to_thread(lambda: {id(p): p.run_sync() for p in offloaded})
    results: list[Evaluation] = []
    for p in prepared:
        if isinstance(p, Evaluation):
            results.append(p)
        elif id(p) in done:
            results.extend(done[id(p)])
        else:
            results.extend(await p.run_async())
    return results


async def run_run_evaluators(
    registry: EvaluatorRegistry, specs: list[EvaluatorSpec], *, item_results: list[Any]
) -> list[Evaluation]:
    """Run every run-level evaluator over all item results; failures are recorded."""
    results: list[Evaluation] = []
    for spec in specs:
        entry = registry.find(spec.name)
        try:
            entry = registry.get(spec.name, "run")
            args = validate_arguments(spec.name, entry.arguments, spec.args)
            results.extend(await _call(entry, {**args, "item_results": item_results}))
        except Exception as exc:
            log.warning("run evaluator %s failed: %s", spec.name, exc, exc_info=True)
            results.append(failure(spec.name, exc, entry.version if entry else None))
    return results
