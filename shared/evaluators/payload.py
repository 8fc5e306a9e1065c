"""Read evaluator arguments (``input`` / ``output`` / ``expected_output``) as plain data.

Targets hand evaluators JSON-like dicts, but in-process callers may pass pydantic models
(e.g. ``AgentInvokeResponse``); both are accepted.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel


class MissingReference(ValueError):
    """A reference-based evaluator got no usable ``expected_output``."""


class MalformedPayload(ValueError):
    """An evaluator argument does not have the shape the evaluator documents."""


def as_dict(value: Any, what: str) -> dict[str, Any]:
    """``value`` as a dict; None becomes ``{}``. Raises :class:`MalformedPayload` otherwise."""
    if value is None:
        return {}
    if isinstance(value, BaseModel):
        return value.model_dump()
    if isinstance(value, Mapping):
        return dict(value)
    raise MalformedPayload(f"{what} must be a JSON object (dict), got {type(value).__name__}")


def as_list(value: Any, what: str) -> list[Any]:
    """``value`` as a list; None becomes ``[]``."""
    if value is None:
        return []
    if isinstance(value, list | tuple):
        return [v.model_dump() if isinstance(v, BaseModel) else v for v in value]
    raise MalformedPayload(f"{what} must be a list, got {type(value).__name__}")


def require_key(expected_output: Any, key: str, evaluator: str) -> Any:
    """``expected_output[key]``, or :class:`MissingReference` naming what the dataset lacks."""
    expected = as_dict(expected_output, "expected_output")
    if key not in expected:
        raise MissingReference(
            f"{evaluator} needs expected_output.{key}; add it to the dataset item "
            f"(got keys {sorted(expected)})"
        )
    return expected[key]


def tool_call_names(output: Mapping[str, Any]) -> list[str]:
    """Tool names in call order: ``output["tool_calls"]``, else derived from the trajectory."""
    names = output.get("tool_calls")
    if names is not None:
        return [n if isinstance(n, str) else str(as_dict(n, "tool call").get("name", "")) for n in names]
    result: list[str] = []
    for message in as_list(output.get("trajectory"), "output.trajectory"):
        for call in as_dict(message, "trajectory message").get("tool_calls") or []:
            result.append(str(as_dict(call, "tool call").get("name", "")))
    return result
