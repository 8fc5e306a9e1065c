"""The search-proxy over ``search.query``."""

from __future__ import annotations

from pydantic import ValidationError

from services.evaluator.errors import TargetConfigError
from services.evaluator.targets.base import TargetOutput
from services.evaluator.targets.nats_request import NatsRequestTarget
from yardstick.api.eval_messages import EvalTask, SearchTarget
from yardstick.api.search_messages import SearchRequest, SearchResponse


class SearchQueryTarget(NatsRequestTarget[SearchRequest, SearchResponse]):
    service = "search-proxy"
    reply_model = SearchResponse

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

    def output(self, reply: SearchResponse) -> TargetOutput:
        return TargetOutput(
            output={
                "results": [hit.model_dump(mode="json") for hit in reply.results],
                "latency_ms": reply.latency_ms,
                "backend": reply.backend,
            }
        )
