"""Build a target configuration from `--target KIND` and repeatable `--set dotted.key=value`.

An unknown kind or key is refused naming the closest known one (``unknown target kind 'pyhton';
did you mean 'python'? Known kinds: …``); other problems read as :mod:`yardstick.api.validation_messages`
sentences, never pydantic's own text."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, TypeAdapter, ValidationError
from pydantic_core import ErrorDetails

from yardstick.api.eval_messages import (
    AgentTarget,
    AnswerTarget,
    HttpTarget,
    PythonTarget,
    SearchTarget,
    TargetSpec,
)
from yardstick.api.validation_messages import did_you_mean, explain, unknown_name
from yardstick.target_settings import TargetSettingError, apply_settings

_target_adapter: TypeAdapter[Any] = TypeAdapter(TargetSpec)


_TARGETS: dict[str, type[BaseModel]] = {
    "agent": AgentTarget,
    "search": SearchTarget,
    "answer": AnswerTarget,
    "http": HttpTarget,
    "python": PythonTarget,
}


class TargetOptionError(TargetSettingError):
    pass


def _settable(model: type[BaseModel], prefix: str = "") -> list[str]:
    """Every dotted key ``--set`` accepts for ``model``."""
    keys: list[str] = []
    for name, field in model.model_fields.items():
        if name == "kind":
            continue
        nested = field.annotation
        if isinstance(nested, type) and issubclass(nested, BaseModel):
            keys += _settable(nested, f"{prefix}{name}.")
        else:
            keys.append(f"{prefix}{name}")
    return keys


def _problem(kind: str, error: ErrorDetails) -> str:
    model = _TARGETS.get(kind)
    if error["type"] != "extra_forbidden":
        return explain({**error, "loc": error["loc"][1:]}, model, noun="key")
    key = ".".join(str(p) for p in error["loc"][1:])
    valid = _settable(model) if model else []
    return f"unknown key {key!r} (valid keys: {', '.join(valid) or 'none'}){did_you_mean(key, valid)}"


def build_target(kind: str, settings: list[str]) -> dict[str, Any]:
    """`build_target("agent", ["model.offline.ambiguous_policy=guess_first"])` → a validated target dict."""
    if kind not in _TARGETS:
        raise TargetOptionError(unknown_name("target kind", kind, list(_TARGETS), "known kinds"))
    try:
        target = apply_settings({"kind": kind}, settings)
    except TargetSettingError as exc:
        raise TargetOptionError(str(exc)) from exc
    try:
        validated = _target_adapter.validate_python(target)
    except ValidationError as exc:
        problems = "; ".join(_problem(kind, e) for e in exc.errors(include_url=False))
        raise TargetOptionError(f"invalid --target {kind} configuration: {problems}") from exc
    dumped: dict[str, Any] = _target_adapter.dump_python(validated, mode="json")
    return dumped
