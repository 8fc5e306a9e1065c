"""Any HTTP endpoint, described by an :class:`~shared.contracts.HttpTarget`."""

from __future__ import annotations

import os
from typing import Any

import httpx

from services.evaluator.errors import (
    TargetConfigError,
    TargetRejected,
    TargetTimeout,
    TargetUnavailable,
)
from services.evaluator.targets.base import CallContext, TargetOutput
from services.evaluator.targets.templating import fill_template, map_output
from shared.contracts.eval_messages import EvalTask, HttpTarget

BODY_EXCERPT_CHARS = 300


def resolve_headers(spec: HttpTarget, environ: dict[str, str] | None = None) -> dict[str, str]:
    """Literal headers plus the secret ones read from this worker's environment."""
    env = os.environ if environ is None else environ
    headers = dict(spec.headers)
    for header, variable in spec.headers_from_env.items():
        value = env.get(variable)
        if value is None:
            raise TargetConfigError(
                f"header {header!r} needs environment variable {variable!r}, which is not set on this "
                "worker: set it in the eval workers' environment"
            )
        headers[header] = value
    return headers


def _excerpt(response: httpx.Response) -> str:
    text = response.text
    return text if len(text) <= BODY_EXCERPT_CHARS else text[:BODY_EXCERPT_CHARS] + "…"


class HttpEndpointTarget:
    def __init__(self, client: httpx.AsyncClient) -> None:
        self._client = client

    async def call(self, task: EvalTask, ctx: CallContext) -> TargetOutput:
        spec = task.target
        if not isinstance(spec, HttpTarget):
            raise TargetConfigError(f"http target given a {spec.kind!r} task")
        headers = {**ctx.headers(), **resolve_headers(spec)}
        body = fill_template(spec.body_template, task.input) if spec.body_template is not None else None
        params: dict[str, Any] | None = None
        if spec.method == "GET" and isinstance(body, dict):
            params, body = {k: v if isinstance(v, str) else str(v) for k, v in body.items()}, None
        try:
            response = await self._client.request(
                spec.method, spec.url, json=body, params=params, headers=headers, timeout=task.timeout_s
            )
        except httpx.TimeoutException as exc:
            raise TargetTimeout(
                f"{spec.method} {spec.url} did not answer within {task.timeout_s:g}s"
            ) from exc
        except httpx.TransportError as exc:
            raise TargetUnavailable(f"{spec.method} {spec.url} failed: {type(exc).__name__}: {exc}") from exc
        if response.status_code >= 500:
            raise TargetUnavailable(
                f"{spec.method} {spec.url} answered {response.status_code}: {_excerpt(response)}"
            )
        if response.status_code >= 300:
            raise TargetRejected(
                f"{spec.method} {spec.url} answered {response.status_code}: {_excerpt(response)}"
            )
        try:
            payload = response.json()
        except ValueError as exc:
            raise TargetRejected(
                f"{spec.method} {spec.url} answered {response.status_code} with a body that is not JSON: "
                f"{_excerpt(response)}"
            ) from exc
        return TargetOutput(output=map_output(payload, spec.output_mapping))
