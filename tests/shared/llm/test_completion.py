from __future__ import annotations

import pytest

from shared.llm.completion import NotACompletion, read_completion

pytestmark = pytest.mark.unit


def test_text_and_tokens_of_an_ordinary_completion() -> None:
    body = {
        "id": "x",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": '{"a": 1}'}}],
        "usage": {"prompt_tokens": 12, "completion_tokens": 3, "total_tokens": 15},
    }
    completion = read_completion(body)
    assert (completion.text, completion.tokens) == ('{"a": 1}', (12, 3))


@pytest.mark.parametrize(
    ("message", "text"),
    [
        ({"content": [{"type": "text", "text": '{"a"'}, {"type": "text", "text": ": 1}"}]}, '{"a": 1}'),
        ({"content": None, "tool_calls": [{"function": {"name": "f", "arguments": '{"a": 1}'}}]}, '{"a": 1}'),
        ({"content": "", "tool_calls": [{"function": {"name": "f", "arguments": {"a": 1}}}]}, '{"a": 1}'),
        ({"content": None}, ""),
        ({}, ""),
    ],
)
def test_text_from_content_parts_and_tool_calls(message: dict[str, object], text: str) -> None:
    assert read_completion({"choices": [{"message": message}]}).text == text


def test_missing_parts_are_empty_not_errors() -> None:
    assert read_completion({}).text == "" and read_completion({}).tokens == (0, 0)
    assert read_completion({"choices": [], "usage": {"prompt_tokens": None}}).tokens == (0, 0)


@pytest.mark.parametrize(
    "body",
    [
        {"choices": {"0": {}}},
        {"choices": ["text"]},
        {"usage": {"prompt_tokens": "many"}},
        {"choices": [{"message": 3}]},
    ],
)
def test_a_body_that_is_not_a_completion_says_where(body: dict[str, object]) -> None:
    with pytest.raises(NotACompletion, match="the reply is not a chat completion"):
        read_completion(body)
