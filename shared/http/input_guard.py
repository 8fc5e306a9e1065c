"""An HTTP service's input boundary, before routing and authentication: what no endpoint can store.

- A body larger than ``max_body_bytes`` is refused with 413 as soon as its ``Content-Length`` (or,
  streamed, its running size) passes the limit: never read in full, never before the key check.
- A JSON body must be strict JSON: ``NaN``/``Infinity``, numbers that overflow to infinity and lone
  surrogates (``"\\ud800"``) are refused (orjson rejects them all), and so is NUL (``\\u0000``) in
  any string or key, which PostgreSQL cannot store. 422, naming where.
- NUL or text that is not UTF-8 in the path or the query string: 422.

Everything else (types, ranges, sizes of single fields) is the pydantic models' job. The body
is handed on unchanged, so endpoints parse it exactly as before.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any
from urllib.parse import parse_qsl, unquote_to_bytes

import orjson
from starlette.responses import Response

from shared.http.problem_details import FieldProblem, problem_response

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

_NUL_ESCAPE = b"\\u0000"
PageFor = Callable[[Scope, int, str], Response | None]
"""An app's own page for a refusal (status, detail), or None for the problem JSON: the web UI
answers its addresses with an HTML page."""


class BodyTooLarge(Exception):
    pass


def nul_path(value: Any, loc: list[str | int]) -> list[str | int] | None:
    """Where the first NUL is in a parsed JSON value (keys included), or None."""
    if isinstance(value, str):
        return loc if "\x00" in value else None
    if isinstance(value, dict):
        for key, item in value.items():
            if "\x00" in key:
                return [*loc, key.replace("\x00", "\\u0000")]
            if (found := nul_path(item, [*loc, key])) is not None:
                return found
    if isinstance(value, list):
        for index, item in enumerate(value):
            if (found := nul_path(item, [*loc, index])) is not None:
                return found
    return None


def body_problem(body: bytes) -> FieldProblem | None:
    """Why a JSON body cannot be accepted, or None."""
    try:
        parsed = orjson.loads(body)
    except orjson.JSONDecodeError as exc:
        return FieldProblem(
            loc=["body"],
            msg=f"not strict JSON ({exc}); NaN and Infinity are not numbers here",
            type="json_invalid",
        )
    if _NUL_ESCAPE in body and (where := nul_path(parsed, ["body"])) is not None:
        return FieldProblem(
            loc=where, msg="NUL characters (\\u0000) are not allowed in text", type="string_nul"
        )
    return None


def url_problem(scope: Scope) -> FieldProblem | None:
    """NUL or non-UTF-8 text in the path or the query string, or None."""
    raw_path: bytes = scope.get("raw_path") or scope.get("path", "").encode()
    if b"\x00" in unquote_to_bytes(raw_path) or "\x00" in scope.get("path", ""):
        return FieldProblem(loc=["path"], msg="NUL characters are not allowed in the path", type="string_nul")
    query = scope.get("query_string", b"")
    try:
        pairs = parse_qsl(query.decode("ascii"), keep_blank_values=True, errors="strict")
    except (UnicodeDecodeError, ValueError):
        return FieldProblem(loc=["query"], msg="the query string is not valid UTF-8", type="query_invalid")
    for key, value in pairs:
        if "\x00" in key or "\x00" in value:
            return FieldProblem(
                loc=["query", key.replace("\x00", "\\u0000")],
                msg="NUL characters are not allowed",
                type="string_nul",
            )
    return None


class InputGuard:
    """ASGI middleware applying the rules in the module docstring."""

    def __init__(
        self,
        app: ASGIApp,
        max_body_bytes: int,
        too_large_hint: str = "raise MAX_BODY_BYTES",
        page_for: PageFor | None = None,
    ) -> None:
        self.app = app
        self.max_body_bytes = max_body_bytes
        self.too_large_hint = too_large_hint
        self.page_for = page_for

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        if (problem := url_problem(scope)) is not None:
            await self._refuse(scope, receive, send, 422, problem)
            return
        length = _content_length(scope)
        if length is not None and length > self.max_body_bytes:
            await self._too_large(scope, receive, send)
            return
        if scope["method"] not in ("POST", "PUT", "PATCH"):
            await self.app(scope, receive, send)
            return
        try:
            body = await self._read(receive)
        except BodyTooLarge:
            await self._too_large(scope, receive, send)
            return
        if body and _is_json(scope) and (problem := body_problem(body)) is not None:
            await self._refuse(scope, receive, send, 422, problem)
            return
        await self.app(scope, _replay(body, receive), send)

    async def _read(self, receive: Receive) -> bytes:
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                break
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self.max_body_bytes:
                raise BodyTooLarge
            chunks.append(chunk)
            if not message.get("more_body", False):
                break
        return b"".join(chunks)

    async def _too_large(self, scope: Scope, receive: Receive, send: Send) -> None:
        limit_mib = self.max_body_bytes / 2**20
        response = problem_response(
            413,
            f"request body larger than {limit_mib:g} MiB: {self.too_large_hint}",
            error="BodyTooLarge",
        )
        response.headers["Connection"] = "close"
        await response(scope, receive, send)

    async def _refuse(
        self, scope: Scope, receive: Receive, send: Send, status: int, problem: FieldProblem
    ) -> None:
        where = ".".join(str(p) for p in problem.loc)
        detail = f"invalid request: {where}: {problem.msg}"
        page = self.page_for(scope, status, detail) if self.page_for is not None else None
        response = page or problem_response(status, detail, error="RequestValidationError", errors=[problem])
        await response(scope, receive, send)


def _content_length(scope: Scope) -> int | None:
    for name, value in scope.get("headers", ()):
        if name == b"content-length":
            try:
                return int(value)
            except ValueError:
                return None
    return None


def _is_json(scope: Scope) -> bool:
    for name, value in scope.get("headers", ()):
        if name == b"content-type":
            media: bytes = value.split(b";", 1)[0].strip().lower()
            return media == b"application/json" or media.endswith(b"+json")
    return False


def _replay(body: bytes, upstream: Receive) -> Receive:
    """The body already read, then whatever the client sends next (its disconnect)."""
    sent = False

    async def receive() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await upstream()

    return receive
