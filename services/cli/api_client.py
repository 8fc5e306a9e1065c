"""A small HTTP client for the coordinator API that finds the local stack's URL and key by itself."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import httpx

from services.stack.state import DEFAULT_STATE_DIR, StackState
from yardstick.transport import error_detail, segment

__all__ = ["ApiClient", "ApiError", "segment"]


class ApiError(RuntimeError):
    """The API answered with an error (or could not be reached); the message says what to do."""

    def __init__(self, message: str, status: int | None = None) -> None:
        super().__init__(message)
        self.status = status


class ApiClient:
    def __init__(self, base_url: str, api_key: str, timeout: float = 30.0) -> None:
        self.base_url = base_url.rstrip("/")
        self.client = httpx.Client(
            base_url=self.base_url, headers={"Authorization": f"Bearer {api_key}"}, timeout=timeout
        )

    @classmethod
    def discover(cls, state_dir: Path = DEFAULT_STATE_DIR) -> ApiClient:
        url, key = os.environ.get("YARDSTICK_API_URL"), os.environ.get("YARDSTICK_API_KEY")
        if not (url and key):
            state = StackState.load(state_dir)
            if state is None or not state.api_url or not state.api_key:
                raise ApiError(
                    "no coordinator found: start the local stack with `yardstick stack up`, "
                    "or set YARDSTICK_API_URL and YARDSTICK_API_KEY"
                )
            url, key = url or state.api_url, key or state.api_key
        return cls(url, key)

    def request(self, method: str, path: str, **kwargs: Any) -> httpx.Response:
        try:
            response = self.client.request(method, path, **kwargs)
        except httpx.HTTPError as exc:
            raise ApiError(f"cannot reach the coordinator at {self.base_url}: {exc}") from exc
        if response.status_code >= 400:
            raise ApiError(
                f"{method} {path} → {response.status_code}: {error_detail(response)}", response.status_code
            )
        return response

    def get(self, path: str, **kwargs: Any) -> Any:
        return self.request("GET", path, **kwargs).json()

    def post(self, path: str, body: Any) -> Any:
        return self.request("POST", path, json=body).json()

    def text(self, path: str, **kwargs: Any) -> str:
        return self.request("GET", path, **kwargs).text
