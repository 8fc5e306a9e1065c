"""LangChain's ``with_structured_output(schema).ainvoke(prompt)`` shape over :class:`StructuredLlm`,
for code written against that shape (the RAG answerer, dataset generation): the same response-format
fallback and tolerant parsing as the judges. A reply that never parses raises
:class:`LlmReplyInvalid` with the reason and the raw reply (a caller with no "not measured" value
turns it into its own failure)."""

from __future__ import annotations

from typing import Any, Generic, TypeVar

from pydantic import BaseModel

from shared.llm.call_stats import LlmCallStats
from shared.llm.structured import StructuredLlm

T = TypeVar("T", bound=BaseModel)


class LlmReplyInvalid(RuntimeError):
    """No usable structured reply: the reason, and the model's last raw text."""

    def __init__(self, reason: str, raw: str | None) -> None:
        super().__init__(reason if raw is None else f"{reason} (raw reply: {raw[:200]!r})")
        self.reason = reason
        self.raw = raw


class _Bound(Generic[T]):
    def __init__(self, owner: StructuredModel, schema: type[T]) -> None:
        self._owner = owner
        self._schema = schema

    async def ainvoke(self, input: str, **_: Any) -> T:
        reply = await self._owner.llm.ask(self._schema, input)
        self._owner.stats = self._owner.stats + reply.stats
        if reply.value is None:
            raise LlmReplyInvalid(reply.reason or "no reply", reply.raw)
        return reply.value


class StructuredModel:
    """Has ``with_structured_output(schema)`` like a LangChain chat model; counts what it spent."""

    def __init__(self, llm: StructuredLlm) -> None:
        self.llm = llm
        self.stats = LlmCallStats()

    @property
    def identity(self) -> str:
        return self.llm.config.identity

    def with_structured_output(self, schema: type[T]) -> _Bound[T]:
        return _Bound(self, schema)
