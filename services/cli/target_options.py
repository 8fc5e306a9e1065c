"""Build a target configuration from `--target KIND` and repeatable `--set dotted.key=value`."""

from __future__ import annotations

import json
from typing import Any

from pydantic import TypeAdapter, ValidationError

from shared.contracts.eval_messages import TargetSpec

_target_adapter: TypeAdapter[Any] = TypeAdapter(TargetSpec)


class TargetOptionError(ValueError):
    pass


def _value(raw: str) -> Any:
    try:
        return json.loads(raw)
    except json.JSONDecodeError:
        return raw


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
        problems = "; ".join(f"{'.'.join(str(p) for p in e['loc'][1:])}: {e['msg']}" for e in exc.errors())
        raise TargetOptionError(f"invalid --target {kind} configuration: {problems}") from exc
    dumped: dict[str, Any] = _target_adapter.dump_python(validated, mode="json")
    return dumped
