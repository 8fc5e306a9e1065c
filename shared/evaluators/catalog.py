"""What evaluators are loaded, described for other processes, and an experiment's item-level
evaluators checked against what the running eval workers really have loaded."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

import jsonschema
from pydantic import BaseModel

from shared.contracts.evaluator_catalog import EvaluatorDescriptor, WorkerEvaluators
from shared.evaluators.arguments import validate_arguments
from shared.evaluators.registry import EvaluatorRegistry, Level, RegisteredEvaluator
from yardstick.api.evaluation import EvaluatorSpec
from yardstick.api.metric_spec import MetricSpec
from yardstick.api.validation_messages import closest, did_you_mean_each

log = logging.getLogger(__name__)

PLUGIN_HINT = (
    "install it on every eval worker (YARDSTICK_EVALUATOR_MODULES or the 'yardstick.evaluators' "
    "entry point) and restart them"
)


class EvaluatorUnavailable(LookupError):
    """An experiment names an evaluator that one or more running eval workers have not loaded."""


def _schema(entry: RegisteredEvaluator) -> dict[str, Any]:
    model: type[BaseModel] = entry.arguments
    try:
        return model.model_json_schema(by_alias=True)
    except Exception:  # an argument type with no JSON schema: names are still advertised
        log.warning("evaluator %s: its arguments have no JSON schema", entry.name)
        return {}


def _default_specs(entry: RegisteredEvaluator) -> dict[str, MetricSpec]:
    try:
        return entry.metric_specs({})
    except Exception:  # a declaration that needs arguments: the submitter's own registry resolves it
        return {}


def describe_loaded(registry: EvaluatorRegistry) -> list[EvaluatorDescriptor]:
    """Every evaluator of ``registry``, sorted by level then name."""
    return [
        EvaluatorDescriptor(
            name=e.name,
            level=e.level,
            version=e.version,
            arguments_schema=_schema(e),
            metric_specs=_default_specs(e),
        )
        for e in registry.entries()
    ]


def _has(worker: WorkerEvaluators, name: str, level: Level) -> EvaluatorDescriptor | None:
    return next((d for d in worker.evaluators if d.name == name and d.level == level), None)


def _check_arguments(
    registry: EvaluatorRegistry, spec: EvaluatorSpec, advertised: EvaluatorDescriptor
) -> None:
    """``args`` against this process's own model when it has the evaluator too (the same model the
    worker validates with), else against the JSON schema the worker advertised."""
    local = registry.find(spec.name)
    if local is not None and local.level == "item" and local.version == advertised.version:
        validate_arguments(spec.name, local.arguments, spec.args)
        return
    if not advertised.arguments_schema:
        return
    errors = sorted(
        jsonschema.Draft202012Validator(advertised.arguments_schema).iter_errors(spec.args),
        key=lambda e: list(e.path),
    )
    if errors:
        problems = "; ".join(f"{'.'.join(str(p) for p in e.path) or 'args'}: {e.message}" for e in errors)
        properties = list(advertised.arguments_schema.get("properties", {}))
        hint = did_you_mean_each([name for name in spec.args if name not in properties], properties)
        accepted = ", ".join(properties) or "none"
        raise EvaluatorUnavailable(
            f"evaluator {spec.name!r}: {problems} (accepted arguments: {accepted}){hint}"
        )


def check_on_fleet(
    registry: EvaluatorRegistry, specs: Sequence[EvaluatorSpec], fleet: Sequence[WorkerEvaluators]
) -> None:
    """Raise :class:`EvaluatorUnavailable` for the first item-level evaluator that a running worker
    lacks (naming the workers, listing the evaluators they have) or whose ``args`` it would refuse.
    An empty fleet checks nothing: the caller falls back to its own registry."""
    for spec in specs:
        having = [w for w in fleet if _has(w, spec.name, "item") is not None]
        lacking = sorted(w.worker_id for w in fleet if _has(w, spec.name, "item") is None)
        if not having:
            known = sorted({d.name for w in fleet for d in w.evaluators if d.level == "item"})
            near = closest(spec.name, known)
            raise EvaluatorUnavailable(
                f"unknown item-level evaluator {spec.name!r}: none of the running eval workers "
                f"({', '.join(lacking)}) has it; known: {', '.join(known)}."
                + (f" Did you mean {near!r}?" if near else "")
                + " If it is a plugin, "
                + PLUGIN_HINT
            )
        if lacking:
            raise EvaluatorUnavailable(
                f"item-level evaluator {spec.name!r} is loaded on eval worker(s) "
                f"{', '.join(sorted(w.worker_id for w in having))} but not on {', '.join(lacking)}: "
                f"any worker may score any item, so {PLUGIN_HINT}"
            )
        descriptor = _has(having[0], spec.name, "item")
        assert descriptor is not None
        _check_arguments(registry, spec, descriptor)


def declared_metric_specs(
    registry: EvaluatorRegistry, specs: Sequence[EvaluatorSpec], fleet: Sequence[WorkerEvaluators] = ()
) -> dict[str, MetricSpec]:
    """What the item-level evaluators ``specs`` declare their metrics mean, under their arguments:
    from this process's registry, else (an evaluator only the workers have) what a worker advertised."""
    out: dict[str, MetricSpec] = {}
    for spec in specs:
        entry = registry.find(spec.name)
        if entry is not None and entry.level == "item":
            declared = entry.metric_specs(spec.args)
        else:
            advertised = next((d for w in fleet if (d := _has(w, spec.name, "item")) is not None), None)
            declared = dict(advertised.metric_specs) if advertised is not None else {}
        for metric, metric_spec in declared.items():
            out.setdefault(metric, metric_spec)
    return out
