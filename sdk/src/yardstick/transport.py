"""HTTP to the coordinator: bearer key, one error shape (:class:`ApiError` with the API's message),
typed bodies in and out, and the server-sent event lines of a live stream."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any, TypeVar
from urllib.parse import quote

import httpx
from pydantic import BaseModel, TypeAdapter

from yardstick.api.projects import PROJECT_HEADER
from yardstick.discovery import ApiLocation
from yardstick.errors import ApiError

Model = TypeVar("Model", bound=BaseModel)
STREAM_READ_TIMEOUT_S = 60.0
"""The events endpoint sends a keep-alive every 15 s: a minute of silence is a broken stream."""


def segment(value: str) -> str:
    """``value`` as one URL path segment: '/', '?', '#' and '..' cannot change the request."""
    return quote(value, safe="")


def error_detail(response: httpx.Response) -> str:
    """The one sentence an error response carries (RFC 9457 ``detail``), else its text."""
    try:
        body = response.json()
    except ValueError:
        return response.text[:500]
    detail = body.get("detail", body) if isinstance(body, dict) else body
    if isinstance(detail, list):  # FastAPI validation errors
        return "; ".join(
            f"{'.'.join(str(p) for p in err.get('loc', [])[1:])}: {err.get('msg')}" for err in detail
        )
    return str(detail)


def _raise_for_status(method: str, path: str, response: httpx.Response) -> None:
    if response.status_code >= 400:
        raise ApiError(
            f"{method} {path} → {response.status_code}: {error_detail(response)}", response.status_code
        )


class Transport:
    def __init__(
        self, location: ApiLocation, timeout_s: float, transport: httpx.BaseTransport | None = None
    ) -> None:
        self.url = location.url
        self._http = httpx.Client(
            base_url=location.url,
            headers={
                "Authorization": f"Bearer {location.api_key}",
                **({PROJECT_HEADER: location.project} if location.project else {}),
            },
            timeout=timeout_s,
            transport=transport,
        )

        self.project = location.project

    def close(self) -> None:
        self._http.close()

    def request(self, method: str, path: str, **kwargs: Any) -> httpx.Response:
        try:
            response = self._http.request(method, path, **kwargs)
        except httpx.HTTPError as exc:
            raise ApiError(f"cannot reach the coordinator at {self.url}: {exc}") from exc
        _raise_for_status(method, path, response)
        return response

    def get(self, model: type[Model], path: str, **params: Any) -> Model:
        query = {k: v for k, v in params.items() if v is not None}
        return model.model_validate_json(self.request("GET", path, params=query).content)

    def get_list(self, model: type[Model], path: str, **params: Any) -> list[Model]:
        query = {k: v for k, v in params.items() if v is not None}
        return TypeAdapter(list[model]).validate_json(self.request("GET", path, params=query).content)  # type: ignore[valid-type]

    def post(self, model: type[Model], path: str, body: BaseModel | None = None) -> Model:
        payload = None if body is None else body.model_dump(mode="json")
        return model.model_validate_json(self.request("POST", path, json=payload).content)

    def put(self, model: type[Model], path: str, body: BaseModel) -> Model:
        return model.model_validate_json(self.request("PUT", path, json=body.model_dump(mode="json")).content)

    def delete(self, path: str) -> None:
        self.request("DELETE", path)

    def event_lines(self, path: str, deadline: float | None) -> Iterator[str]:
        """The lines of a ``text/event-stream`` response; ``TimeoutError`` once ``deadline``
        (``time.monotonic()``) passes, ``ApiError`` (no status) if the stream breaks off."""
        timeout = httpx.Timeout(self._http.timeout.connect, read=STREAM_READ_TIMEOUT_S)
        try:
            with self._http.stream("GET", path, timeout=timeout) as response:
                if response.status_code >= 400:
                    response.read()
                    _raise_for_status("GET", path, response)
                for line in response.iter_lines():
                    if deadline is not None and time.monotonic() > deadline:
                        raise TimeoutError(f"GET {path}: the stream did not end in time")
                    yield line
        except httpx.HTTPError as exc:
            raise ApiError(f"GET {path}: the stream broke off: {exc}") from exc
