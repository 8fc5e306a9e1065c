"""What LLM calls cost and how they went: tokens, requests, retries, fallbacks, parse failures."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field


class LlmCallStats(BaseModel):
    """Counters of one or more LLM calls (summed with ``+``), recorded in a score's metadata."""

    requests: int = Field(default=0, description="HTTP requests sent")
    retries: int = Field(default=0, description="Requests re-sent after 429, 5xx, a timeout or no connection")
    format_fallbacks: int = Field(
        default=0, description="Requests re-sent with a simpler response_format the server accepts"
    )
    parse_failures: int = Field(default=0, description="Replies that did not parse into the schema")
    input_tokens: int = Field(default=0, description="Prompt tokens the provider reported")
    output_tokens: int = Field(default=0, description="Completion tokens the provider reported")
    waited_s: float = Field(default=0.0, description="Time spent waiting between retries (backoff)")
    response_format: str | None = Field(
        default=None, description="The response format of the last reply: json_schema, json_object or text"
    )

    def __add__(self, other: LlmCallStats) -> LlmCallStats:
        return LlmCallStats(
            requests=self.requests + other.requests,
            retries=self.retries + other.retries,
            format_fallbacks=self.format_fallbacks + other.format_fallbacks,
            parse_failures=self.parse_failures + other.parse_failures,
            input_tokens=self.input_tokens + other.input_tokens,
            output_tokens=self.output_tokens + other.output_tokens,
            waited_s=round(self.waited_s + other.waited_s, 3),
            response_format=other.response_format or self.response_format,
        )

    def as_metadata(self) -> dict[str, Any]:
        """The figures as a score records them: ``usage`` (input/output tokens) beside the counters."""
        return {
            "usage": {"input_tokens": self.input_tokens, "output_tokens": self.output_tokens},
            "llm_requests": self.requests,
            "retries": self.retries,
            "format_fallbacks": self.format_fallbacks,
            "parse_failures": self.parse_failures,
            "response_format": self.response_format,
        }
