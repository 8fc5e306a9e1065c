"""The one installer of problem-details handlers: every kind of error an app can meet answers
``application/problem+json`` in the same shape, and an unexpected failure sends no traceback."""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping
from typing import ClassVar

import httpx
import pytest
from fastapi import FastAPI
from pydantic import BaseModel, Field

from shared.http.problem_details import PROBLEM_MEDIA_TYPE, ProblemError, install_problem_handlers
from yardstick.api.datasets import DatasetItemIn

pytestmark = pytest.mark.unit

SHAPE = {"type", "title", "status", "detail", "error", "errors"}
Client = tuple[httpx.AsyncClient, list[ProblemError]]
"""The app's client and the domain errors its ``on_problem`` saw."""


class WidgetNotFound(ProblemError):
    status_code = 404


class Locked(ProblemError):
    status_code = 423
    headers: ClassVar[Mapping[str, str]] = {"X-Locked-By": "someone"}


class Huge(ProblemError):
    status_code = 413


class Order(BaseModel):
    quantity: int = Field(ge=1)


class Items(BaseModel):
    items: list[DatasetItemIn]


@pytest.fixture
async def client() -> AsyncIterator[Client]:
    seen: list[ProblemError] = []

    def on_problem(exc: ProblemError) -> dict[str, str]:
        seen.append(exc)
        return {"Retry-After": "7"} if isinstance(exc, Locked) else {}

    app = FastAPI()
    install_problem_handlers(
        app, "widget service", unknown_path_hint="it serves POST /orders", on_problem=on_problem
    )

    @app.post("/orders")
    async def order(body: Order) -> Order:
        return body

    @app.post("/items")
    async def items(body: Items) -> int:
        return len(body.items)

    @app.get("/widgets/{name}")
    async def widget(name: str) -> str:
        if name == "locked":
            raise Locked("widget 'locked' is being edited: try again in a minute")
        if name == "huge":
            raise Huge("too big: send less")
        if name == "broken":
            raise RuntimeError("secret internals at 0xdeadbeef")
        raise WidgetNotFound(f"no widget {name!r}: list them with GET /widgets")

    transport = httpx.ASGITransport(app=app, raise_app_exceptions=False)
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as http:
        yield http, seen


def problem(response: httpx.Response, status: int) -> dict[str, object]:
    assert response.status_code == status, response.text
    assert response.headers["content-type"] == PROBLEM_MEDIA_TYPE
    body: dict[str, object] = response.json()
    assert set(body) == SHAPE and body["status"] == status and body["type"] == "about:blank"
    return body


async def test_a_domain_error_answers_its_status_message_name_and_headers(client: Client) -> None:
    http, seen = client
    missing = problem(await http.get("/widgets/nope"), 404)
    assert missing["detail"] == "no widget 'nope': list them with GET /widgets"
    assert missing["error"] == "WidgetNotFound" and missing["title"] == "Not Found"
    locked = await http.get("/widgets/locked")
    assert problem(locked, 423)["error"] == "Locked"
    assert locked.headers["x-locked-by"] == "someone" and locked.headers["retry-after"] == "7"
    huge = await http.get("/widgets/huge")
    assert problem(huge, 413)["error"] == "Huge" and huge.headers["connection"] == "close"
    assert [type(e) for e in seen] == [WidgetNotFound, Locked, Huge]


async def test_validation_errors_name_each_field(client: Client) -> None:
    http, _ = client
    body = problem(await http.post("/orders", json={"quantity": 0}), 422)
    assert body["error"] == "RequestValidationError"
    assert str(body["detail"]).startswith("invalid request: quantity: ")
    assert body["errors"] == [
        {
            "loc": ["body", "quantity"],
            "msg": "Input should be greater than or equal to 1",
            "type": "greater_than_equal",
        }
    ]


async def test_an_unknown_body_field_names_the_item_from_1_and_the_closest_field(client: Client) -> None:
    http, _ = client
    items = [{"id": "a", "input": {}}, {"id": "b", "input": {}, "expected_ouput": {}}]
    body = problem(await http.post("/items", json={"items": items}), 422)
    sentence = (
        "unknown field 'expected_ouput'; did you mean 'expected_output'? Put extra data under 'metadata'."
    )
    assert body["detail"] == f"invalid request: item 2: {sentence}"
    assert body["errors"] == [
        {"loc": ["body", "items", 1, "expected_ouput"], "msg": sentence, "type": "extra_forbidden"}
    ]


async def test_unknown_paths_and_methods_say_what_is_served(client: Client) -> None:
    http, _ = client
    unknown = problem(await http.get("/nowhere"), 404)
    assert unknown["error"] == "NotFound"
    assert unknown["detail"] == "no such endpoint: GET /nowhere is not served here; it serves POST /orders"
    wrong_method = await http.get("/orders")
    body = problem(wrong_method, 405)
    assert body["error"] == "MethodNotAllowed" and body["detail"] == "GET is not allowed on /orders: use POST"
    assert wrong_method.headers["allow"] == "POST"


async def test_an_unexpected_failure_is_a_500_problem_without_its_traceback(
    client: Client, caplog: pytest.LogCaptureFixture
) -> None:
    http, seen = client
    response = await http.get("/widgets/broken")
    body = problem(response, 500)
    assert body["detail"] == "internal error: the widget service's log has the details"
    assert "deadbeef" not in response.text and "Traceback" not in response.text
    assert body["error"] is None and seen == []
    [record] = [r for r in caplog.records if r.exc_info]
    assert "GET /widgets/broken" in record.getMessage()  # the log has it, the client does not
