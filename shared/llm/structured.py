"""A chat call that must come back as a pydantic model, or as "not measured" with the reason.

:meth:`StructuredLlm.ask` never raises for what providers do on a bad day: an endpoint that stays
down, refuses every response format, or keeps writing something that is not the schema gives a
:class:`StructuredReply` with ``value`` None, the ``reason`` in words and the last ``raw`` reply.
Each reply that does not parse is asked again, with the bad reply and what was wrong with it
(at most ``max_parse_attempts`` replies in all).
Every reply carries :class:`~shared.llm.call_stats.LlmCallStats` (tokens, requests, retries).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

import aiohttp
from pydantic import BaseModel

from shared.llm.call_stats import LlmCallStats
from shared.llm.completion import NotACompletion, read_completion
from shared.llm.config import LlmConfig
from shared.llm.json_reply import ReplyUnparsable, parse_reply
from shared.llm.response_formats import (
    PROCESS_FORMATS,
    FormatMemory,
    ResponseFormat,
    json_instruction,
    response_format_field,
    strict_schema,
)
from shared.llm.transport import FormatRefused, ProviderUnavailable, post_chat

T = TypeVar("T", bound=BaseModel)


@dataclass
class StructuredReply(Generic[T]):
    """The parsed answer (or None), the model's last raw text, why it is None, and the figures."""

    value: T | None
    raw: str | None = None
    reason: str | None = None
    stats: LlmCallStats = field(default_factory=LlmCallStats)
    latency_ms: float = 0.0


@dataclass(frozen=True)
class _Schema:
    """The answer model's name and strict JSON schema, as sent in the request and the prompt."""

    name: str
    json: dict[str, Any]


class _NoReply(Exception):
    """No reply came (provider down, every format refused), with the figures so far."""

    def __init__(self, reason: str, stats: LlmCallStats) -> None:
        super().__init__(reason)
        self.stats = stats


def _correction(raw: str, problem: str) -> list[dict[str, str]]:
    """The bad reply, and what was wrong with it: the next try sees both."""
    return [
        {"role": "assistant", "content": raw[:4000]},
        {
            "role": "user",
            "content": f"That reply could not be used ({problem}). Reply again with the JSON object "
            "only, matching the schema.",
        },
    ]


class StructuredLlm:
    """Structured chat calls to one configured model (see the module docstring)."""

    def __init__(self, config: LlmConfig, formats: FormatMemory = PROCESS_FORMATS) -> None:
        if config.provider == "offline":
            raise ValueError("the offline provider calls no model: there is nothing to ask")
        self.config = config
        self._formats = formats

    def _body(self, messages: list[dict[str, str]], schema: _Schema, way: ResponseFormat) -> dict[str, Any]:
        body: dict[str, Any] = {
            "model": self.config.model,
            "temperature": self.config.temperature,
            "max_tokens": self.config.max_output_tokens,
            "messages": messages,
        }
        response_format = response_format_field(way, schema.name, schema.json)
        if response_format is not None:
            body["response_format"] = response_format
        return body

    async def _one_reply(
        self,
        session: aiohttp.ClientSession,
        messages: list[dict[str, str]],
        schema: _Schema,
        stats: LlmCallStats,
    ) -> tuple[str, LlmCallStats]:
        """The text of one reply, falling back through the response formats the endpoint refuses."""
        way: ResponseFormat | None = self._formats.first_way(self.config)
        refusals: list[str] = []
        while way is not None:
            try:
                reply = await post_chat(session, self.config, self._body(messages, schema, way))
            except ProviderUnavailable as exc:
                spent = LlmCallStats(requests=exc.requests, retries=exc.retries, waited_s=exc.waited_s)
                raise _NoReply(f"provider unavailable: {exc}", stats + spent) from exc
            except FormatRefused as exc:
                refusals.append(f"{way.value}: {exc}")
                way = self._formats.next_way(self.config, way)
                stats = stats + LlmCallStats(
                    requests=exc.requests,
                    retries=exc.retries,
                    waited_s=exc.waited_s,
                    format_fallbacks=int(way is not None),
                )
                continue
            self._formats.accepted(self.config, way)
            spent = LlmCallStats(
                requests=reply.requests,
                retries=reply.retries,
                waited_s=reply.waited_s,
                response_format=way.value,
            )
            try:
                completion = read_completion(reply.body)
            except NotACompletion as exc:
                raise _NoReply(str(exc), stats + spent) from exc
            tokens_in, tokens_out = completion.tokens
            return completion.text, stats + spent + LlmCallStats(
                input_tokens=tokens_in, output_tokens=tokens_out
            )
        if self.config.structured_output != "auto":
            refusals.append(f"LLM_STRUCTURED_OUTPUT={self.config.structured_output} allows no other way")
        raise _NoReply("every response format was refused: " + " | ".join(refusals), stats)

    async def ask(self, schema: type[T], prompt: str) -> StructuredReply[T]:
        """Ask ``prompt`` and parse the reply as ``schema``; never raises for provider trouble."""
        started = time.perf_counter()
        stats = LlmCallStats()
        raw: str | None = None
        reason = ""
        sent = _Schema(schema.__name__, strict_schema(schema.model_json_schema()))
        messages = [{"role": "user", "content": prompt + json_instruction(sent.json)}]
        async with aiohttp.ClientSession() as session:
            for _ in range(self.config.max_parse_attempts):
                try:
                    raw, stats = await self._one_reply(session, messages, sent, stats)
                except _NoReply as exc:
                    return self._reply(None, raw, str(exc), exc.stats, started)
                try:
                    return self._reply(parse_reply(raw, schema), raw, None, stats, started)
                except ReplyUnparsable as exc:
                    stats = stats + LlmCallStats(parse_failures=1)
                    reason = str(exc)
                    messages = [*messages[:1], *_correction(raw, reason)]
        tries = self.config.max_parse_attempts
        return self._reply(None, raw, f"reply did not parse after {tries} tries: {reason}", stats, started)

    @staticmethod
    def _reply(
        value: T | None, raw: str | None, reason: str | None, stats: LlmCallStats, started: float
    ) -> StructuredReply[T]:
        latency = round((time.perf_counter() - started) * 1000, 3)
        return StructuredReply(value=value, raw=raw, reason=reason, stats=stats, latency_ms=latency)
