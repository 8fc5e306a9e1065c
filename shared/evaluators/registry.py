"""The explicit evaluator registry.

An item-level evaluator keeps Langfuse v3's signature::

    def fn(*, input, output, expected_output, metadata, **kwargs) -> Evaluation | list[Evaluation]

and a run-level evaluator::

    def fn(*, item_results, **kwargs) -> Evaluation | list[Evaluation]

Either may be ``async``. Experiments reference evaluators as ``{name, args}``
(:class:`~shared.contracts.EvaluatorSpec`); ``args`` are passed as keyword arguments, checked
against the evaluator's arguments model (read from its signature, see :mod:`.arguments`) when an
experiment is submitted. An evaluator that raises becomes a recorded failure (value None, error
'Type: message').

An evaluator may declare how its metrics pass (``passes=``): a mapping metric → criterion, or a
function ``(metric, args) -> PassCriterion | None``. Metrics it does not declare follow the
default rule in ``shared.analysis.pass_rule``.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import cached_property
from typing import Any, Literal

from pydantic import BaseModel

from shared.contracts.evaluation import Evaluation, EvaluatorSpec
from shared.contracts.pass_criteria import PassCriterion
from shared.evaluators.arguments import arguments_model, validate_arguments
from shared.evaluators.item_results import coerce_evaluation

log = logging.getLogger(__name__)

EvaluatorFn = Callable[..., Any]
Level = Literal["item", "run"]
PassDeclaration = Callable[[str, Mapping[str, Any]], PassCriterion | None]
"""``(metric, the evaluator's args) -> criterion``, None for a metric it does not declare."""


class UnknownEvaluator(LookupError):
    """No evaluator of that name is registered."""

    def __init__(self, name: str, level: Level) -> None:
        known = ", ".join(sorted(n for n, e in REGISTRY.items() if e.level == level))
        super().__init__(f"unknown {level}-level evaluator {name!r}; known: {known}")
        self.name = name


@dataclass(frozen=True)
class RegisteredEvaluator:
    name: str
    fn: EvaluatorFn
    level: Level
    version: str
    description: str
    reference_free: bool
    columnar: Callable[..., Any] | None = None
    """For run-level evaluators written in columnar form: ``factory(columns, **args)``
    (see ``shared.analysis.run_level``); the finalizer feeds it from Postgres a metric at a time."""
    passes: PassDeclaration | None = None
    """How the metrics it reports pass (None: the default rule)."""

    @cached_property
    def arguments(self) -> type[BaseModel]:
        """The model of its ``args`` (the columnar form's, when it has one)."""
        return arguments_model(self.name, self.columnar or self.fn)

    def criterion(self, metric: str, args: Mapping[str, Any]) -> PassCriterion | None:
        """How ``metric`` passes by this evaluator's declaration; None when it declares nothing."""
        return self.passes(metric, args) if self.passes else None


REGISTRY: dict[str, RegisteredEvaluator] = {}


def register(
    name: str,
    *,
    level: Level = "item",
    version: str = "1",
    reference_free: bool = False,
    columnar: Callable[..., Any] | None = None,
    passes: PassDeclaration | Mapping[str, PassCriterion] | None = None,
) -> Callable[[EvaluatorFn], EvaluatorFn]:
    """Decorator: add ``fn`` to the registry under ``name``.

    ``reference_free`` marks evaluators that need no expected output (usable on live traffic);
    ``columnar`` is a run-level evaluator's columnar form (``fn`` must compute the same results);
    ``passes`` declares how its metrics pass (a mapping by metric name, or a function).
    """
    declaration = _as_declaration(passes)

    def wrap(fn: EvaluatorFn) -> EvaluatorFn:
        if name in REGISTRY and REGISTRY[name].fn is not fn:
            raise ValueError(f"evaluator {name!r} registered twice")
        doc = (inspect.getdoc(fn) or "").split("\n", 1)[0]
        REGISTRY[name] = RegisteredEvaluator(
            name, fn, level, version, doc, reference_free, columnar, declaration
        )
        return fn

    return wrap


def _as_declaration(passes: PassDeclaration | Mapping[str, PassCriterion] | None) -> PassDeclaration | None:
    if passes is None or callable(passes):
        return passes
    by_metric = dict(passes)
    return lambda metric, _args: by_metric.get(metric)


def get(name: str, level: Level = "item") -> RegisteredEvaluator:
    load_builtin_evaluators()
    entry = REGISTRY.get(name)
    if entry is None or entry.level != level:
        raise UnknownEvaluator(name, level)
    return entry


def validate_specs(specs: list[EvaluatorSpec], level: Level = "item") -> None:
    """Raise :class:`UnknownEvaluator` for the first unknown name and
    :class:`~shared.evaluators.arguments.EvaluatorArgumentsError` for the first bad ``args``."""
    for spec in specs:
        entry = get(spec.name, level)
        validate_arguments(spec.name, entry.arguments, spec.args)


def _as_list(result: Any, default_name: str) -> list[Evaluation]:
    if result is None:
        return [Evaluation(name=default_name, value=None, comment="evaluator returned nothing")]
    items = result if isinstance(result, list) else [result]
    return [coerce_evaluation(item, default_name) for item in items]


def failure(name: str, exc: BaseException) -> Evaluation:
    return Evaluation(name=name, value=None, error=f"{type(exc).__name__}: {exc}", comment="evaluator failed")


async def _call(entry: RegisteredEvaluator, kwargs: dict[str, Any]) -> list[Evaluation]:
    result = entry.fn(**kwargs)
    if inspect.isawaitable(result):
        result = await result
    return _as_list(result, entry.name)


async def run_item_evaluators(
    specs: list[EvaluatorSpec],
    *,
    input: Any,
    output: Any,
    expected_output: Any,
    metadata: dict[str, Any] | None,
) -> list[Evaluation]:
    """Run every item-level evaluator, in spec order; failures are recorded, never raised.

    The synchronous ones (CPU work: parsing, matching) run together in one worker thread, so a
    process serving hundreds of concurrent calls keeps its event loop free; async ones (judges,
    which wait on a model) are awaited on the loop."""
    given = {"input": input, "output": output, "expected_output": expected_output, "metadata": metadata or {}}
    prepared: list[_Prepared | Evaluation] = [_prepare(spec, given) for spec in specs]
    sync = [p for p in prepared if isinstance(p, _Prepared) and not _is_async(p.entry)]
    done: dict[int, list[Evaluation]] = {}
    if sync:
        done = await asyncio.to_thread(lambda: {id(p): p.run_sync() for p in sync})
    results: list[Evaluation] = []
    for p in prepared:
        if isinstance(p, Evaluation):
            results.append(p)
        elif id(p) in done:
            results.extend(done[id(p)])
        else:
            results.extend(await p.run_async())
    return results


@dataclass(frozen=True)
class _Prepared:
    """One evaluator call with its validated arguments; running it records failures."""

    spec: EvaluatorSpec
    entry: RegisteredEvaluator
    kwargs: dict[str, Any]

    def _failed(self, exc: Exception) -> list[Evaluation]:
        log.warning("evaluator %s failed: %s", self.spec.name, exc, exc_info=True)
        return [failure(self.spec.name, exc)]

    def run_sync(self) -> list[Evaluation]:
        try:
            return _as_list(self.entry.fn(**self.kwargs), self.entry.name)
        except Exception as exc:  # an evaluator must never crash its caller
            return self._failed(exc)

    async def run_async(self) -> list[Evaluation]:
        try:
            return await _call(self.entry, self.kwargs)
        except Exception as exc:  # an evaluator must never crash its caller
            return self._failed(exc)


def _prepare(spec: EvaluatorSpec, given: dict[str, Any]) -> _Prepared | Evaluation:
    """The call to make, or the failure record of an unknown evaluator or refused arguments."""
    try:
        entry = get(spec.name, "item")
        args = validate_arguments(spec.name, entry.arguments, spec.args)
    except Exception as exc:
        log.warning("evaluator %s refused: %s", spec.name, exc)
        return failure(spec.name, exc)
    return _Prepared(spec, entry, {**args, **given})  # the item's own values win over same-named args


def _is_async(entry: RegisteredEvaluator) -> bool:
    return inspect.iscoroutinefunction(entry.fn)


async def run_run_evaluators(specs: list[EvaluatorSpec], *, item_results: list[Any]) -> list[Evaluation]:
    """Run every run-level evaluator over all item results; failures are recorded."""
    results: list[Evaluation] = []
    for spec in specs:
        try:
            entry = get(spec.name, "run")
            args = validate_arguments(spec.name, entry.arguments, spec.args)
            results.extend(await _call(entry, {**args, "item_results": item_results}))
        except Exception as exc:
            log.warning("run evaluator %s failed: %s", spec.name, exc, exc_info=True)
            results.append(failure(spec.name, exc))
    return results


_loaded = False


def load_builtin_evaluators() -> None:
    """Import the modules that register the built-in evaluators, then the plugins (once; see
    :mod:`.plugins`: ``YARDSTICK_EVALUATOR_MODULES`` and the ``yardstick.evaluators`` entry points)."""
    global _loaded
    if _loaded:
        return
    _loaded = True
    import importlib

    for module in (
        "drive_thru",
        "trajectory",
        "retrieval",
        "rag",
        "judges",
        "conversation",
        "multi_turn",
        "generic",
    ):
        try:
            importlib.import_module(f"shared.evaluators.{module}")
        except ModuleNotFoundError as exc:
            if exc.name != f"shared.evaluators.{module}":
                raise
    from shared.evaluators.plugins import load_plugins

    load_plugins()
