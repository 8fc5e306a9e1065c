"""Token usage read from an HTTP target's JSON answer: OpenAI/Mistral and Anthropic shapes; anything
else is no usage, never an error."""

from __future__ import annotations

from typing import Any

import pytest

from services.evaluator.targets.reported_usage import reported_usage
from yardstick.api.agent_messages import TokenUsage

pytestmark = pytest.mark.unit


def test_openai_shape() -> None:
    payload = {"model": "gpt-x", "usage": {"prompt_tokens": 10, "completion_tokens": 4, "total_tokens": 14}}
    assert reported_usage(payload) == TokenUsage(
        input_tokens=10, output_tokens=4, total_tokens=14, model="gpt-x"
    )


def test_anthropic_shape_adds_up_its_total() -> None:
    payload = {"usage": {"input_tokens": 30, "output_tokens": 12, "cache_read_input_tokens": 0}}
    assert reported_usage(payload) == TokenUsage(input_tokens=30, output_tokens=12, total_tokens=42)


@pytest.mark.parametrize(
    "payload",
    [
        {"answer": "no usage"},
        ["not", "an", "object"],
        {"usage": "lots"},
        {"usage": {}},
        {"usage": {"prompt_tokens": -1}},
        {"usage": {"total_tokens": "many"}},
    ],
)
def test_a_missing_or_malformed_usage_is_none(payload: Any) -> None:
    assert reported_usage(payload) is None
