"""How to ask an endpoint for JSON, and which way each endpoint accepted.

Three ways, tried in order: ``json_schema`` (the reply is held to the schema: OpenAI, Mistral,
vLLM, Ollama), ``json_object`` (any JSON object: llama.cpp's server, older proxies), ``text``
(no ``response_format`` at all; the prompt alone asks for JSON). When an endpoint refuses a way
and a simpler one then works, :class:`FormatMemory` remembers the simpler one for that endpoint
and model, so later calls start there and skip the refusal. Held per process; a server that
refuses once by accident is asked the simpler way until the process restarts (the reply is still
parsed and checked against the schema).
"""

from __future__ import annotations

import json
import threading
from enum import StrEnum
from typing import Any

from pydantic import BaseModel

from shared.llm.config import LlmConfig


class ResponseFormat(StrEnum):
    JSON_SCHEMA = "json_schema"
    JSON_OBJECT = "json_object"
    TEXT = "text"

    def simpler(self) -> ResponseFormat | None:
        """The next way to try after this one is refused (None after ``text``)."""
        order = list(ResponseFormat)
        index = order.index(self)
        return order[index + 1] if index + 1 < len(order) else None


def response_format_field(way: ResponseFormat, schema: type[BaseModel]) -> dict[str, Any] | None:
    """The request's ``response_format`` for ``way`` (None: leave it out)."""
    if way is ResponseFormat.JSON_SCHEMA:
        return {
            "type": "json_schema",
            "json_schema": {"name": schema.__name__, "schema": schema.model_json_schema(), "strict": False},
        }
    if way is ResponseFormat.JSON_OBJECT:
        return {"type": "json_object"}
    return None


def json_instruction(schema: type[BaseModel]) -> str:
    """Appended to every structured prompt (``json_object`` needs the word JSON in the messages)."""
    return (
        "\n\nReply with a single JSON object and nothing else (no prose, no code fences). "
        f"It must match this JSON schema:\n{json.dumps(schema.model_json_schema(), sort_keys=True)}"
    )


class FormatMemory:
    """The way each endpoint+model last accepted (thread-safe; one per process by default)."""

    def __init__(self) -> None:
        self._accepted: dict[str, ResponseFormat] = {}
        self._lock = threading.Lock()

    def first_way(self, config: LlmConfig) -> ResponseFormat:
        with self._lock:
            return self._accepted.get(config.endpoint, ResponseFormat.JSON_SCHEMA)

    def accepted(self, config: LlmConfig, way: ResponseFormat) -> None:
        with self._lock:
            self._accepted[config.endpoint] = way

    def forget(self) -> None:
        with self._lock:
            self._accepted.clear()


PROCESS_FORMATS = FormatMemory()
