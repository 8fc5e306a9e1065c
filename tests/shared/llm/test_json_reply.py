from __future__ import annotations

import json

import pytest
from pydantic import BaseModel

from shared.llm import ReplyUnparsable, parse_reply

pytestmark = pytest.mark.unit


class Verdict(BaseModel):
    reason: str
    score: float


@pytest.mark.parametrize(
    "text",
    [
        '{"reason": "ok", "score": 4}',
        '  \n{"reason": "ok", "score": 4}\n',
        'Sure! Here is my verdict:\n```json\n{"reason": "ok", "score": 4}\n```\nHope it helps.',
        '```\n{"reason": "ok", "score": 4}\n```',
        'My answer is {"reason": "ok", "score": 4} and that is final.',
        'I think {score: 4} — no wait: {"reason": "ok", "score": 4}',
    ],
)
def test_json_is_found_in_prose_and_fences(text: str) -> None:
    assert parse_reply(text, Verdict) == Verdict(reason="ok", score=4)


def test_a_raw_line_break_inside_a_string_is_read() -> None:
    """llama-cpp-python 0.3.36's grammar for a JSON string allows control characters: SmolLM2-135M
    wrote a reason with raw line breaks in it (strict JSON would refuse it)."""
    text = '{ "reason": "It meets the criteria:\n\n1. The item is named." ,"score": 5}'  # raw line breaks
    with pytest.raises(ValueError, match="Invalid control character"):
        json.loads(text)
    assert parse_reply(text, Verdict) == Verdict(
        reason="It meets the criteria:\n\n1. The item is named.", score=5
    )


def test_the_first_candidate_that_fits_the_schema_wins() -> None:
    text = '{"note": "thinking"} then {"reason": "ok", "score": 2}'
    assert parse_reply(text, Verdict).score == 2


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("The answer is good. Score: 4/5.", "no JSON object found"),
        ('{"reason": "ok", "score": 4', "no JSON object found"),
        ('{"reason": "ok"}', "JSON does not match Verdict: score: Field required"),
        ('{"reason": "ok", "score": "four"}', "JSON does not match Verdict: score"),
        ("", "no JSON object found"),
    ],
)
def test_unparsable_replies_say_why(text: str, problem: str) -> None:
    with pytest.raises(ReplyUnparsable, match=problem):
        parse_reply(text, Verdict)
