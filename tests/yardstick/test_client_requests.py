"""What the Client sends and how it reads answers, against a recorded transport (no server)."""

from __future__ import annotations

import json

import httpx
import pytest

from tests.yardstick.sample_tasks import shout
from yardstick import ApiError, Client, NotConfigured

pytestmark = pytest.mark.unit


def recording_client(answer: httpx.Response, seen: list[httpx.Request]) -> Client:
    def handle(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return answer

    return Client("http://coordinator.test", "ys_key", transport=httpx.MockTransport(handle))


def test_a_task_function_is_sent_as_its_python_target_with_evaluator_short_forms() -> None:
    seen: list[httpx.Request] = []
    accepted = {"id": "e1", "status": "running", "total": 4, "links": {}, "warnings": []}
    with recording_client(httpx.Response(202, json=accepted), seen) as client:
        result = client.start_experiment(
            "v1", dataset="qa", target=shout, evaluators=['contains:{"field": "answer"}'], concurrency=4
        )
    assert result.id == "e1"
    body = json.loads(seen[0].content)
    assert seen[0].headers["Authorization"] == "Bearer ys_key"
    assert body["target"] == {"kind": "python", "name": "shout"}
    assert body["evaluators"] == [{"name": "contains", "args": {"field": "answer"}}]
    assert (body["concurrency"], body["run_evaluators"]) == (4, None)


def test_a_misspelt_setting_is_refused_before_anything_is_sent() -> None:
    seen: list[httpx.Request] = []
    with (
        recording_client(httpx.Response(500), seen) as client,
        pytest.raises(TypeError, match=r"unknown settings \['concurency'\]"),
    ):
        client.start_experiment("v1", dataset="qa", target=shout, concurency=4)
    assert seen == []


def test_an_error_answer_becomes_an_api_error_with_the_message() -> None:
    seen: list[httpx.Request] = []
    problem = {"detail": "no task worker serves the python target 'shout'"}
    with (
        recording_client(httpx.Response(422, json=problem), seen) as client,
        pytest.raises(ApiError) as caught,
    ):
        client.start_experiment("v1", dataset="qa", target=shout)
    assert caught.value.status == 422 and "no task worker serves" in str(caught.value)


def test_without_a_coordinator_the_error_says_how_to_get_one(
    monkeypatch: pytest.MonkeyPatch, tmp_path: object
) -> None:
    monkeypatch.delenv("YARDSTICK_API_URL", raising=False)
    monkeypatch.delenv("YARDSTICK_API_KEY", raising=False)
    monkeypatch.setenv("YARDSTICK_HOME", str(tmp_path))
    with pytest.raises(NotConfigured, match="yardstick stack up"):
        Client()


def test_a_misspelt_setting_names_the_closest_one() -> None:
    with (
        recording_client(httpx.Response(500), []) as client,
        pytest.raises(TypeError, match=r"\); did you mean 'concurrency'\?$"),
    ):
        client.start_experiment("v1", dataset="qa", target=shout, concurency=4)


def test_a_misspelt_item_field_is_refused_before_anything_is_sent() -> None:
    seen: list[httpx.Request] = []
    items = [{"id": "a", "input": {}}, {"id": "b", "input": {}, "expected_ouput": {"answer": "x"}}]
    with recording_client(httpx.Response(500), seen) as client, pytest.raises(ValueError) as caught:
        client.push_dataset("qa", items)
    assert str(caught.value).splitlines() == [
        "push_dataset('qa'): invalid dataset items",
        "  - item 2 (id 'b'): unknown field 'expected_ouput'; did you mean 'expected_output'? "
        "Put extra data under 'metadata'.",
    ]
    assert seen == []
