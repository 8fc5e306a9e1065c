"""The token usage an HTTP endpoint reports in its JSON response: a top-level ``usage`` object
shaped like OpenAI's or Mistral's (``prompt_tokens``/``completion_tokens``/``total_tokens``) or
Anthropic's (``input_tokens``/``output_tokens``). A missing or malformed ``usage`` is no usage, never
an error: the target's answer is what is evaluated. The top-level ``model``, when a string, names
the model that spent them."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field, ValidationError

from yardstick.api.agent_messages import TokenUsage


class ReportedUsage(BaseModel):
    """Either shape; unknown fields (cache counters, details) are ignored."""

    prompt_tokens: int | None = Field(default=None, ge=0)
    completion_tokens: int | None = Field(default=None, ge=0)
    total_tokens: int | None = Field(default=None, ge=0)
    input_tokens: int | None = Field(default=None, ge=0)
    output_tokens: int | None = Field(default=None, ge=0)

    def token_usage(self, model: str | None) -> TokenUsage | None:
        spent_in = self.prompt_tokens if self.prompt_tokens is not None else self.input_tokens
        spent_out = self.completion_tokens if self.completion_tokens is not None else self.output_tokens
        if spent_in is None and spent_out is None and self.total_tokens is None:
            return None
        input_tokens, output_tokens = spent_in or 0, spent_out or 0
        total = self.total_tokens if self.total_tokens is not None else input_tokens + output_tokens
        return TokenUsage(
            input_tokens=input_tokens, output_tokens=output_tokens, total_tokens=total, model=model
        )


def reported_usage(payload: Any) -> TokenUsage | None:
    """The usage a response body reports at its top level, or None."""
    if not isinstance(payload, dict) or not isinstance(payload.get("usage"), dict):
        return None
    try:
        usage = ReportedUsage.model_validate(payload["usage"])
    except ValidationError:
        return None
    model = payload.get("model")
    return usage.token_usage(model if isinstance(model, str) else None)
