"""HTTP target plumbing: fill ``{input.<path>}`` placeholders, pick outputs by dotted path."""

from __future__ import annotations

import re
from typing import Any

from services.evaluator.errors import TargetConfigError, TargetRejected

_PLACEHOLDER = re.compile(r"\{input\.([A-Za-z0-9_\-]+(?:\.[A-Za-z0-9_\-]+)*)\}")


class PathNotFound(LookupError):
    """A dotted path does not resolve in the given document."""


def lookup(document: Any, path: str) -> Any:
    """Resolve ``a.b.0.c`` in nested dicts/lists (integer segments index lists)."""
    current = document
    for segment in path.split("."):
        if isinstance(current, dict) and segment in current:
            current = current[segment]
        elif isinstance(current, list) and segment.lstrip("-").isdigit():
            index = int(segment)
            if not -len(current) <= index < len(current):
                raise PathNotFound(f"index {index} out of range at {segment!r} in {path!r}")
            current = current[index]
        else:
            raise PathNotFound(f"no {segment!r} at that level of {path!r}")
    return current


def _fill_string(template: str, item_input: dict[str, Any]) -> Any:
    def value_of(path: str) -> Any:
        try:
            return lookup(item_input, path)
        except PathNotFound as exc:
            raise TargetConfigError(
                f"body_template placeholder {{input.{path}}} does not match the item input ({exc}); "
                f"input keys: {sorted(item_input)}"
            ) from exc

    whole = _PLACEHOLDER.fullmatch(template)
    if whole:  # a lone placeholder keeps the value's JSON type (list, number, object)
        return value_of(whole.group(1))
    return _PLACEHOLDER.sub(lambda m: str(value_of(m.group(1))), template)


def fill_template(template: Any, item_input: dict[str, Any]) -> Any:
    """A copy of ``template`` with every ``{input.<path>}`` in its string values replaced."""
    if isinstance(template, str):
        return _fill_string(template, item_input)
    if isinstance(template, dict):
        return {key: fill_template(value, item_input) for key, value in template.items()}
    if isinstance(template, list):
        return [fill_template(value, item_input) for value in template]
    return template


def map_output(body: Any, output_mapping: dict[str, str]) -> dict[str, Any]:
    """Output dict from the response JSON: each key from its dotted path; no mapping = whole body."""
    if not output_mapping:
        return body if isinstance(body, dict) else {"body": body}
    output: dict[str, Any] = {}
    for key, path in output_mapping.items():
        try:
            output[key] = lookup(body, path)
        except PathNotFound as exc:
            raise TargetRejected(
                f"output_mapping {key!r} -> {path!r} not found in the response ({exc}); "
                "fix the mapping or the endpoint"
            ) from exc
    return output
