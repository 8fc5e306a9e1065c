"""How to ask an endpoint for JSON, and which way each endpoint accepted.

Three ways, tried in order (``LLM_STRUCTURED_OUTPUT=auto``, the default):

1. ``json_schema``: ``{"type": "json_schema", "json_schema": {"name", "schema", "strict": true}}``,
   the reply held to the schema (OpenAI, Mistral, vLLM, Ollama, LiteLLM);
2. ``json_object`` with the schema beside it: ``{"type": "json_object", "schema": …}``.
   llama-cpp-python's server turns that schema into a grammar (and answers ``json_schema`` with
   HTTP 500); servers that do not know the ``schema`` key hold the reply to any JSON object;
3. ``text``: no ``response_format`` at all; the prompt alone asks for JSON (every prompt does).

The schema sent is the answer model's JSON schema made *strict* (:func:`strict_schema`): every
object lists all its properties as required and allows no others, without defaults or string
lengths, as OpenAI's strict mode needs; a grammar built from it cannot leave a field out. Replies
are parsed tolerantly and validated against the pydantic model in every way
(:mod:`shared.llm.json_reply`).

When an endpoint refuses a way and a simpler one then works, :class:`FormatMemory` remembers the
simpler one for that endpoint and model, so later calls start there and skip the refusal. The
memory is held per process (each worker learns once, and forgets on restart). A setting other than
``auto`` uses its one way and never falls back: ``json_schema``, ``json_object`` or ``off`` (text).
"""

from __future__ import annotations

import json
import threading
from enum import StrEnum
from typing import Any

from shared.llm.config import LlmConfig, StructuredOutput


class ResponseFormat(StrEnum):
    JSON_SCHEMA = "json_schema"
    JSON_OBJECT = "json_object"
    TEXT = "text"

    def simpler(self) -> ResponseFormat | None:
        """The next way to try after this one is refused (None after ``text``)."""
        order = list(ResponseFormat)
        index = order.index(self)
        return order[index + 1] if index + 1 < len(order) else None


PINNED: dict[StructuredOutput, ResponseFormat] = {
    "json_schema": ResponseFormat.JSON_SCHEMA,
    "json_object": ResponseFormat.JSON_OBJECT,
    "off": ResponseFormat.TEXT,
}
"""The one way each setting other than ``auto`` uses."""

_SUBSCHEMA_MAPS = ("properties", "$defs", "definitions", "patternProperties")
_SUBSCHEMA_LISTS = ("anyOf", "oneOf", "allOf", "prefixItems")
_SUBSCHEMAS = ("items", "additionalProperties", "not", "if", "then", "else")


_NOT_IN_STRICT = frozenset({"default", "minLength", "maxLength"})
"""Keywords OpenAI's strict mode refuses (400 "… is not permitted"); the answer model still checks
string lengths when the reply is validated."""


def strict_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """``schema`` (a JSON schema) with every object closed and all its properties required, without
    ``default`` values or string lengths (strict mode refuses them); a copy, sub-schemas included."""
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key in _NOT_IN_STRICT:
            continue
        if key in _SUBSCHEMA_MAPS and isinstance(value, dict):
            value = {name: _strict(sub) for name, sub in value.items()}
        elif key in _SUBSCHEMA_LISTS and isinstance(value, list):
            value = [_strict(sub) for sub in value]
        elif key in _SUBSCHEMAS and isinstance(value, dict):
            value = strict_schema(value)
        out[key] = value
    if isinstance(out.get("properties"), dict):
        out["required"] = list(out["properties"])
        out.setdefault("additionalProperties", False)
    return out


def _strict(value: Any) -> Any:
    return strict_schema(value) if isinstance(value, dict) else value


def response_format_field(way: ResponseFormat, name: str, schema: dict[str, Any]) -> dict[str, Any] | None:
    """The request's ``response_format`` for ``way`` and the strict ``schema`` (None: leave it out)."""
    if way is ResponseFormat.JSON_SCHEMA:
        return {"type": "json_schema", "json_schema": {"name": name, "schema": schema, "strict": True}}
    if way is ResponseFormat.JSON_OBJECT:
        return {"type": "json_object", "schema": schema}
    return None


def json_instruction(schema: dict[str, Any]) -> str:
    """Appended to every structured prompt (``json_object`` needs the word JSON in the messages)."""
    return (
        "\n\nReply with a single JSON object and nothing else (no prose, no code fences). "
        f"It must match this JSON schema:\n{json.dumps(schema, sort_keys=True)}"
    )


class FormatMemory:
    """The way each endpoint+model last accepted (thread-safe; one per process by default)."""

    def __init__(self) -> None:
        self._accepted: dict[str, ResponseFormat] = {}
        self._lock = threading.Lock()

    def first_way(self, config: LlmConfig) -> ResponseFormat:
        """The way to ask first: the setting's one way, else the way last accepted, else ``json_schema``."""
        if config.structured_output != "auto":
            return PINNED[config.structured_output]
        with self._lock:
            return self._accepted.get(config.endpoint, ResponseFormat.JSON_SCHEMA)

    def next_way(self, config: LlmConfig, refused: ResponseFormat) -> ResponseFormat | None:
        """The way to try after ``refused`` (None: give up; only ``auto`` falls back)."""
        return refused.simpler() if config.structured_output == "auto" else None

    def accepted(self, config: LlmConfig, way: ResponseFormat) -> None:
        if config.structured_output != "auto":
            return
        with self._lock:
            self._accepted[config.endpoint] = way

    def forget(self) -> None:
        with self._lock:
            self._accepted.clear()


PROCESS_FORMATS = FormatMemory()
