"""The input guard's rules on their own: which JSON bodies are refused, and where it says the
problem is. Each HTTP service's wiring is tested with the service."""

from __future__ import annotations

import pytest

from shared.http.input_guard import body_problem, nul_path


@pytest.mark.unit
@pytest.mark.parametrize(
    ("body", "loc", "type_"),
    [
        ('{"name": "a\\u0000b"}', ["body", "name"], "string_nul"),
        ('{"items": [{"input": {"k\\u0000": 1}}]}', ["body", "items", 0, "input", "k\\u0000"], "string_nul"),
        ('{"timeout_s": NaN}', ["body"], "json_invalid"),
        ('{"timeout_s": Infinity}', ["body"], "json_invalid"),
        ('{"timeout_s": 1e400}', ["body"], "json_invalid"),
        ('{"name": "\\ud800"}', ["body"], "json_invalid"),
    ],
)
def test_body_problems(body: str, loc: list[object], type_: str) -> None:
    problem = body_problem(body.encode())
    assert problem is not None and (problem.loc, problem.type) == (loc, type_)


@pytest.mark.unit
def test_clean_bodies_pass() -> None:
    assert body_problem(b'{"name": "a\\\\u0000b", "n": 3000000000}') is None  # an escaped backslash
    assert nul_path({"a": ["x", {"b": "y"}]}, ["body"]) is None
