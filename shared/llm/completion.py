"""The parts of an OpenAI-style chat completion Yardstick reads, as pydantic models (lenient:
unknown fields are ignored, missing ones are empty), so a strange 200 body is a reason, not a crash."""

from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError


class _Lenient(BaseModel):
    model_config = ConfigDict(extra="ignore")


class _Function(_Lenient):
    name: str | None = None
    arguments: str | dict[str, Any] | None = None


class _ToolCall(_Lenient):
    function: _Function | None = None


class _ContentPart(_Lenient):
    text: str | None = None


class _Message(_Lenient):
    content: str | list[_ContentPart] | None = None
    tool_calls: list[_ToolCall] | None = None


class _Choice(_Lenient):
    message: _Message | None = None


class _Usage(_Lenient):
    prompt_tokens: int | None = Field(default=None, ge=0)
    completion_tokens: int | None = Field(default=None, ge=0)


class ChatCompletion(_Lenient):
    choices: list[_Choice] = Field(default_factory=list)
    usage: _Usage | None = None

    @property
    def text(self) -> str:
        """The first choice's text; a reply that put its JSON in a tool call gives the arguments."""
        message = self.choices[0].message if self.choices else None
        if message is None:
            return ""
        content = message.content
        if isinstance(content, list):
            content = "".join(part.text or "" for part in content)
        if content and content.strip():
            return content
        for call in message.tool_calls or []:
            arguments = call.function.arguments if call.function else None
            if isinstance(arguments, dict):
                return json.dumps(arguments)
            if arguments:
                return arguments
        return content or ""

    @property
    def tokens(self) -> tuple[int, int]:
        """(input, output) tokens the provider reported; 0 for what it did not report."""
        if self.usage is None:
            return 0, 0
        return self.usage.prompt_tokens or 0, self.usage.completion_tokens or 0


class NotACompletion(ValueError):
    """A 200 body that is not a chat completion."""


def read_completion(body: dict[str, Any]) -> ChatCompletion:
    try:
        return ChatCompletion.model_validate(body)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "body"
        raise NotACompletion(f"the reply is not a chat completion ({where}: {first['msg']})") from exc
