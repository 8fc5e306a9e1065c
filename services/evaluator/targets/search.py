"""The search-proxy over ``search.query``."""

from __future__ import annotations

from nats.aio.client import Client as NatsClient
from pydantic import ValidationError

from services.evaluator.errors import TargetConfigError, TargetRejected
from services.evaluator.targets.base import CallContext, TargetOutput
from services.evaluator.targets.nats_request import request_json
from shared.contracts.eval_messages import EvalTask, SearchTarget
from shared.contracts.search_messages import SearchRequest, SearchResponse


class SearchQueryTarget:
    def __init__(self, nc: NatsClient, subject: str) -> None:
        self._nc = nc
        self._subject = subject

    def build_request(self, task: EvalTask) -> SearchRequest:
        spec = task.target
        if not isinstance(spec, SearchTarget):
            raise TargetConfigError(f"search target given a {spec.kind!r} task")
        try:
            return SearchRequest(
                query=task.input["query"],
                mode=spec.mode,
                limit=spec.limit,
                backend=spec.backend,
                bypass_cache=spec.bypass_cache,
                degrade=spec.degrade,
            )
        except KeyError as exc:
            raise TargetConfigError(
                f"item {task.item_id!r} has no input.query, which the search target needs"
            ) from exc
        except ValidationError as exc:
            raise TargetConfigError(
                f"item {task.item_id!r} input does not fit a search request: {exc}"
            ) from exc

    async def call(self, task: EvalTask, ctx: CallContext) -> TargetOutput:
        request = self.build_request(task)
        raw = await request_json(
            self._nc, self._subject, request, timeout_s=task.timeout_s, headers=ctx.headers()
        )
        try:
            response = SearchResponse.model_validate_json(raw)
        except ValidationError as exc:
            raise TargetRejected(f"search reply is not a SearchResponse: {exc}") from exc
        if not response.ok:
            raise TargetRejected(f"search-proxy answered with an error: {response.error or '(no message)'}")
        return TargetOutput(
            output={
                "results": [hit.model_dump(mode="json") for hit in response.results],
                "latency_ms": response.latency_ms,
                "backend": response.backend,
            }
        )
