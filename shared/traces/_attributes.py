"""Reading typed values out of span attributes (JSON values), tolerant of what applications send."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping

from pydantic import JsonValue

Attrs = Mapping[str, JsonValue]


def text(attrs: Attrs, *keys: str) -> str | None:
    """The first of ``keys`` present as non-empty text (numbers are given as text)."""
    for key in keys:
        value = attrs.get(key)
        if isinstance(value, str) and value:
            return value
        if isinstance(value, int | float) and not isinstance(value, bool):
            return str(value)
    return None


def integer(attrs: Attrs, *keys: str) -> int | None:
    for key in keys:
        value = attrs.get(key)
        if isinstance(value, bool):
            continue
        if isinstance(value, int):
            return value
        if isinstance(value, float) and value.is_integer():
            return int(value)
        if isinstance(value, str) and value.strip().isdigit():
            return int(value)
    return None


def maybe_json(value: JsonValue) -> JsonValue:
    """``value`` parsed when it is text holding a JSON object or array, else unchanged."""
    if isinstance(value, str) and value[:1] in ("{", "["):
        try:
            parsed: JsonValue = json.loads(value)
        except ValueError:
            return value
        return parsed
    return value


def indexed(attrs: Attrs, prefix: str) -> list[dict[str, JsonValue]]:
    """Flattened lists, as OpenInference and OpenLLMetry write them.

    ``llm.input_messages.0.message.role`` with prefix ``llm.input_messages`` gives
    ``[{"message.role": …}, …]`` ordered by index (gaps skipped)."""
    pattern = re.compile(re.escape(prefix) + r"\.(\d+)\.(.+)$")
    found: dict[int, dict[str, JsonValue]] = {}
    for key, value in attrs.items():
        if key.startswith(prefix) and (match := pattern.match(key)):
            found.setdefault(int(match.group(1)), {})[match.group(2)] = value
    return [found[index] for index in sorted(found)]
