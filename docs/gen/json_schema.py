"""JSON-schema types written the way the reference pages show them (``list[str] | null``)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT_PREFIX = f"{Path(__file__).resolve().parents[2]}/"
"""Defaults that are paths in the repository are shown relative to it, not to this checkout."""

RefLink = Callable[[str], str]


def _plain(name: str) -> str:
    return name


def type_text(schema: dict[str, Any], link: RefLink = _plain) -> str:
    """A short type for one property's schema; ``link`` renders a ``$ref``'s model name."""
    if "$ref" in schema:
        return link(schema["$ref"].rsplit("/", 1)[-1])
    if "enum" in schema:
        return " \\| ".join(json.dumps(v) for v in schema["enum"])
    if "const" in schema:
        return json.dumps(schema["const"])
    for key in ("anyOf", "oneOf", "allOf"):
        if key in schema:
            return " \\| ".join(dict.fromkeys(type_text(s, link) for s in schema[key]))
    kind = schema.get("type")
    if kind == "array":
        return f"list[{type_text(schema.get('items', {}), link)}]"
    if kind == "object" and isinstance(schema.get("additionalProperties"), dict):
        return f"dict[str, {type_text(schema['additionalProperties'], link)}]"
    if isinstance(kind, list):
        return " \\| ".join(kind)
    return str(kind or "any")


def cell(text: object) -> str:
    """Text fit for one markdown table cell: one line, pipes escaped, repository paths relative."""
    return " ".join(str(text).replace(ROOT_PREFIX, "").split()).replace("|", "\\|")
