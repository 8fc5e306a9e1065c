"""The evaluator registry: an object built once at start-up and handed to whoever scores.

An item-level evaluator keeps Langfuse v3's signature::

    def fn(*, input, output, expected_output, metadata, **kwargs) -> Evaluation | list[Evaluation]

and a run-level evaluator::

    def fn(*, item_results, **kwargs) -> Evaluation | list[Evaluation]

Either may be ``async``. ``@register(name, ...)`` only *marks* a function (nothing global
changes when a module is imported); :func:`shared.evaluators.loading.build_registry` collects the
marked functions of the built-in modules, the configured plugin modules and the entry points into
one :class:`EvaluatorRegistry`. Experiments reference evaluators as ``{name, args}``
(:class:`~shared.contracts.EvaluatorSpec`), checked against the evaluator's arguments model (read
from its signature, see :mod:`.arguments`) when an experiment is submitted.

What each reported metric means is declared at registration (``metrics=``): a mapping metric →
:class:`~yardstick.api.metric_spec.MetricSpec`, or a function of the evaluator's ``args``
returning that mapping (``retrieval`` reports ``recall@K`` for each K it is given). ``passes=`` is
the short form for a mapping metric → pass criterion (the spec follows the criterion's direction).
A metric an evaluator reports without declaring it is higher-is-better in [0, 1].
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Any, Literal

from pydantic import BaseModel

from shared.evaluators.arguments import arguments_model, validate_arguments
from yardstick.api.evaluation import EvaluatorSpec
from yardstick.api.metric_spec import MetricSpec
from yardstick.api.pass_criteria import PassCriterion
from yardstick.api.validation_messages import unknown_name

EvaluatorFn = Callable[..., Any]
Level = Literal["item", "run"]
MetricDeclaration = Callable[[Mapping[str, Any]], Mapping[str, MetricSpec]]
"""``args -> {metric: spec}``: the metrics an evaluator reports under those arguments."""

MARK = "__yardstick_evaluator__"


class UnknownEvaluator(LookupError):
    """No evaluator of that name is registered."""

    def __init__(self, name: str, level: Level, known: Iterable[str]) -> None:
        super().__init__(unknown_name(f"{level}-level evaluator", name, sorted(known)))
        self.name = name


class DuplicateEvaluator(ValueError):
    """Two different functions claim the same evaluator name."""


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
    metrics: MetricDeclaration | None = None
    """What the metrics it reports mean (None: each is higher-is-better in [0, 1])."""
    inline: bool = False
    """A synchronous evaluator whose cost is bounded by the size of a small output (a few list or
    dict walks): it runs on the event loop, not in a worker thread. The thread hop costs more than
    such an evaluator itself (about 250 µs of CPU an item for the three drive-thru metrics)."""
    source: str = field(default="", compare=False)
    """Where it came from: 'builtin', a module path, or 'entry point NAME'."""

    @cached_property
    def arguments(self) -> type[BaseModel]:
        """The model of its ``args`` (the columnar form's, when it has one)."""
        return arguments_model(self.name, self.columnar or self.fn)

    def metric_specs(self, args: Mapping[str, Any] | None = None) -> dict[str, MetricSpec]:
        """The specs it declares for ``args``, each stamped with this evaluator's name and version."""
        declared = self.metrics(dict(args or {})) if self.metrics else {}
        stamp = {"evaluator": self.name, "evaluator_version": self.version}
        return {metric: spec.model_copy(update=stamp) for metric, spec in declared.items()}


def register(
    name: str,
    *,
    level: Level = "item",
    version: str = "1",
    reference_free: bool = False,
    columnar: Callable[..., Any] | None = None,
    metrics: MetricDeclaration | Mapping[str, MetricSpec] | None = None,
    passes: Mapping[str, PassCriterion] | None = None,
    inline: bool = False,
) -> Callable[[EvaluatorFn], EvaluatorFn]:
    """Decorator: mark ``fn`` as the evaluator ``name`` (collected by ``build_registry``).

    ``reference_free`` marks evaluators that need no expected output (usable on live traffic);
    ``columnar`` is a run-level evaluator's columnar form (``fn`` must compute the same results);
    ``metrics`` declares what its metrics mean; ``passes`` is the short form of ``metrics`` for a
    mapping metric → pass criterion. ``inline`` runs a synchronous ``fn`` on the event loop instead
    of a worker thread: only for work bounded by a small output's size (no user regex, no edit
    distance over long text, no I/O); plugins keep the default.
    """
    declaration = _as_declaration(metrics, passes)

    def wrap(fn: EvaluatorFn) -> EvaluatorFn:
        entry = RegisteredEvaluator(
            name, fn, level, version, _first_line(fn), reference_free, columnar, declaration, inline
        )
        setattr(fn, MARK, entry)
        return fn

    return wrap


def _as_declaration(
    metrics: MetricDeclaration | Mapping[str, MetricSpec] | None, passes: Mapping[str, PassCriterion] | None
) -> MetricDeclaration | None:
    if metrics is not None and passes is not None:
        raise ValueError("declare metrics= or passes=, not both")
    if passes is not None:
        metrics = {metric: MetricSpec.from_criterion(criterion) for metric, criterion in passes.items()}
    if metrics is None or callable(metrics):
        return metrics
    fixed = dict(metrics)
    return lambda _args: fixed


def marked(obj: Any) -> RegisteredEvaluator | None:
    """The registration ``@register`` attached to ``obj``, if any."""
    entry = getattr(obj, MARK, None)
    return entry if isinstance(entry, RegisteredEvaluator) else None


class EvaluatorRegistry:
    """Evaluators by name. Built by :func:`shared.evaluators.loading.build_registry`."""

    def __init__(self, entries: Iterable[RegisteredEvaluator] = ()) -> None:
        self._entries: dict[str, RegisteredEvaluator] = {}
        self.plugin_errors: list[str] = []
        """Entry points that failed to load, as 'entry point name (value): ErrorType: message'."""
        for entry in entries:
            self.add(entry)

    def add(self, entry: RegisteredEvaluator, source: str = "") -> None:
        """Add ``entry``; the same function again is a no-op, another one under a taken name raises."""
        known = self._entries.get(entry.name)
        if known is not None:
            if known.fn is entry.fn:
                return
            raise DuplicateEvaluator(
                f"evaluator {entry.name!r} from {source or 'an unnamed source'} clashes with the one from "
                f"{known.source or 'an unnamed source'}: rename one of them"
            )
        self._entries[entry.name] = entry if not source else _with_source(entry, source)

    def add_function(self, fn: EvaluatorFn, name: str, source: str) -> None:
        """Add a plain function (an entry point naming one) under ``name`` unless it is marked."""
        entry = marked(fn)
        if entry is None:
            entry = RegisteredEvaluator(name, fn, "item", "1", _first_line(fn), False)
        self.add(entry, source)

    def get(self, name: str, level: Level = "item") -> RegisteredEvaluator:
        entry = self._entries.get(name)
        if entry is None or entry.level != level:
            raise UnknownEvaluator(name, level, (e.name for e in self.entries(level)))
        return entry

    def find(self, name: str) -> RegisteredEvaluator | None:
        return self._entries.get(name)

    def entries(self, level: Level | None = None) -> list[RegisteredEvaluator]:
        """Every evaluator (of ``level``), sorted by level then name."""
        chosen = [e for e in self._entries.values() if level is None or e.level == level]
        return sorted(chosen, key=lambda e: (e.level, e.name))

    def __contains__(self, name: object) -> bool:
        return name in self._entries

    def __len__(self) -> int:
        return len(self._entries)

    def validate(self, specs: Iterable[EvaluatorSpec], level: Level = "item") -> None:
        """Raise :class:`UnknownEvaluator` for the first unknown name and
        :class:`~shared.evaluators.arguments.EvaluatorArgumentsError` for the first bad ``args``."""
        for spec in specs:
            validate_arguments(spec.name, self.get(spec.name, level).arguments, spec.args)

    def metric_specs(self, specs: Iterable[EvaluatorSpec], level: Level = "item") -> dict[str, MetricSpec]:
        """The metric specs the evaluators ``specs`` declare under their arguments (first wins)."""
        out: dict[str, MetricSpec] = {}
        for spec in specs:
            for metric, declared in self.get(spec.name, level).metric_specs(spec.args).items():
                out.setdefault(metric, declared)
        return out


def _with_source(entry: RegisteredEvaluator, source: str) -> RegisteredEvaluator:
    return replace(entry, source=source)


def _first_line(fn: EvaluatorFn) -> str:
    return (getattr(fn, "__doc__", None) or "").strip().split("\n", 1)[0]
