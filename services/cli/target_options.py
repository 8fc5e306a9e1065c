"""Build a target configuration from `--target KIND` and repeatable `--set dotted.key=value`."""

from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel, TypeAdapter, ValidationError

from yardstick.api.eval_messages import (
    AgentTarget,
    AnswerTarget,
    HttpTarget,
    PythonTarget,
    SearchTarget,
    TargetSpec,
)

_target_adapter: TypeAdapter[Any] = TypeAdapter(TargetSpec)


_TARGETS: dict[str, type[BaseModel]] = {
    "agent": AgentTarget,
    "search": SearchTarget,
    "answer": AnswerTarget,
    "http": HttpTarget,
    "python": PythonTarget,
}


class TargetOptionError(ValueError):
    pass


def _value(raw: str) -> Any:
    try:
        return json.loads(raw)
    except json.JSONDecodeError:
        return raw


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


def _problem(kind: str, error: Any) -> str:
    key = ".".join(str(p) for p in error["loc"][1:])
    if error["type"] != "extra_forbidden":
        return f"{key}: {error['msg']}"
    model = _TARGETS.get(kind)
    valid = ", ".join(_settable(model)) if model else "none"
    return f"unknown key {key!r} (valid keys: {valid})"


def build_target(kind: str, settings: list[str]) -> dict[str, Any]:
    """`build_target("agent", ["model.offline.ambiguous_policy=guess_first"])` → a validated target dict."""
    target: dict[str, Any] = {"kind": kind}
    for setting in settings:
        key, sep, raw = setting.partition("=")
        if not sep or not key:
            raise TargetOptionError(f"--set {setting!r}: expected dotted.key=value")
        node = target
        *parents, leaf = key.split(".")
        for part in parents:
            node = node.setdefault(part, {})
            if not isinstance(node, dict):
                raise TargetOptionError(f"--set {setting!r}: {part!r} is not an object")
        node[leaf] = _value(raw)
    try:
        validated = _target_adapter.validate_python(target)
    except ValidationError as exc:
        problems = "; ".join(_problem(kind, e) for e in exc.errors())
        raise TargetOptionError(f"invalid --target {kind} configuration: {problems}") from exc
    dumped: dict[str, Any] = _target_adapter.dump_python(validated, mode="json")
    return dumped
