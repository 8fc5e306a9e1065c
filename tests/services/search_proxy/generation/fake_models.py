"""A fake chat model with LangChain's ``with_structured_output`` shape (no network)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pydantic import BaseModel


class FakeStructuredRunnable:
    def __init__(self, respond: Callable[[str], Any]) -> None:
        self._respond = respond

    async def ainvoke(self, input: str) -> Any:
        return self._respond(input)


class FakeChatModel:
    """Answers each schema with a function of the prompt; records the prompts it saw."""

    def __init__(self, responders: dict[type[BaseModel], Callable[[str], Any]]) -> None:
        self.responders = responders
        self.prompts: list[str] = []

    def with_structured_output(self, schema: type[BaseModel]) -> FakeStructuredRunnable:
        respond = self.responders[schema]

        def recording(prompt: str) -> Any:
            self.prompts.append(prompt)
            return respond(prompt)

        return FakeStructuredRunnable(recording)
