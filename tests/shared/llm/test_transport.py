"""Which error answers refuse a request's response_format (and so ask for a simpler way)."""

from __future__ import annotations

import pytest

from shared.llm.transport import names_the_format

pytestmark = pytest.mark.unit


@pytest.mark.parametrize(
    ("status", "body"),
    [
        # llama-cpp-python 0.3.36's server: the request model only knows text and json_object
        (500, "{'type': 'literal_error', 'loc': ('response_format', 'type'), 'input': 'json_schema'}"),
        (400, '{"error": {"message": "Invalid schema for response_format \'V\'", "param": null}}'),
        (422, '{"detail": [{"type": "extra_forbidden", "msg": "Extra inputs are not permitted"}]}'),
        (400, "Unrecognized request argument supplied: schema"),
        (501, ""),
    ],
)
def test_an_answer_naming_the_format_is_a_refusal(status: int, body: str) -> None:
    assert names_the_format(status, body)


@pytest.mark.parametrize(
    ("status", "body"),
    [
        (500, "upstream connect error or disconnect/reset before headers"),
        (400, "This model's maximum context length is 2048 tokens"),
        (503, "response_format is temporarily unavailable"),
        (401, "invalid api key"),
    ],
)
def test_other_answers_are_not(status: int, body: str) -> None:
    assert not names_the_format(status, body)
