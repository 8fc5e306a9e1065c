"""A target's settings as ``dotted.key=value`` strings (``yardstick run --set``, the CI gate's
``--set``): each value is read as JSON when it is JSON (``5``, ``true``, ``{"a": 1}``), else as text;
``a.b=1`` sets ``{"a": {"b": 1}}``. The target itself is checked by the API's target models."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any


class TargetSettingError(ValueError):
    """A setting that is not ``dotted.key=value``, or one that descends into a value."""


def _value(raw: str) -> Any:
    try:
        return json.loads(raw)
    except json.JSONDecodeError:
        return raw


def apply_settings(target: dict[str, Any], settings: Sequence[str]) -> dict[str, Any]:
    """``apply_settings({"kind": "http"}, ["url=https://app/answer"])`` sets each key in ``target``
    (in place) and returns it."""
    for setting in settings:
        key, sep, raw = setting.partition("=")
        if not sep or not key.strip():
            raise TargetSettingError(f"--set {setting!r}: expected dotted.key=value")
        node = target
        *parents, leaf = key.strip().split(".")
        for part in parents:
            node = node.setdefault(part, {})
            if not isinstance(node, dict):
                raise TargetSettingError(f"--set {setting!r}: {part!r} is not an object")
        node[leaf] = _value(raw.strip())
    return target
