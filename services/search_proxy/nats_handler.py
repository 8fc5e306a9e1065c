"""``search.query`` over NATS request/reply, in the ``SEARCH_QUEUE`` queue group.

The handler reads the raw body itself so that a malformed request still gets an answer
(``ok=False``) instead of leaving the requester to time out."""

from __future__ import annotations

from faststream.nats import NatsBroker
from faststream.nats.annotations import NatsMessage
from pydantic import ValidationError

from services.search_proxy.search_service import SearchService
from shared.contracts.search_messages import SearchRequest, SearchResponse
from shared.contracts.topology import SEARCH_QUEUE


def register_search_subscriber(broker: NatsBroker, subject: str, service: SearchService) -> None:
    @broker.subscriber(subject, queue=SEARCH_QUEUE)
    async def answer_search(message: NatsMessage) -> SearchResponse:
        try:
            request = SearchRequest.model_validate_json(message.body)
        except ValidationError as exc:
            problems = "; ".join(
                f"{'.'.join(str(p) for p in e['loc']) or '<body>'}: {e['msg']}" for e in exc.errors()
            )
            return SearchResponse(ok=False, error=f"invalid SearchRequest: {problems}")
        return await service.search(request)
