"""``search.query`` and ``search.answer`` over NATS request/reply, in the ``SEARCH_QUEUE`` queue group.

The handlers read the raw body themselves so that a malformed request still gets an answer
(``ok=False``) instead of leaving the requester to time out."""

from __future__ import annotations

from faststream.nats import NatsBroker
from faststream.nats.annotations import NatsMessage
from pydantic import BaseModel, ValidationError

from services.search_proxy.answering import AnswerService
from services.search_proxy.search_service import SearchService
from yardstick.api.answer_messages import AnswerRequest, AnswerResponse
from yardstick.api.search_messages import SearchRequest, SearchResponse
from yardstick.api.topology import SEARCH_QUEUE


def _invalid(model: type[BaseModel], exc: ValidationError) -> str:
    problems = "; ".join(
        f"{'.'.join(str(p) for p in e['loc']) or '<body>'}: {e['msg']}" for e in exc.errors()
    )
    return f"invalid {model.__name__}: {problems}"


def register_search_subscriber(broker: NatsBroker, subject: str, service: SearchService) -> None:
    @broker.subscriber(subject, queue=SEARCH_QUEUE)
    async def answer_search(message: NatsMessage) -> SearchResponse:
        try:
            request = SearchRequest.model_validate_json(message.body)
        except ValidationError as exc:
            return SearchResponse(ok=False, error=_invalid(SearchRequest, exc))
        return await service.search(request)


def register_answer_subscriber(broker: NatsBroker, subject: str, service: AnswerService) -> None:
    @broker.subscriber(subject, queue=SEARCH_QUEUE)
    async def answer_question(message: NatsMessage) -> AnswerResponse:
        try:
            request = AnswerRequest.model_validate_json(message.body)
        except ValidationError as exc:
            return AnswerResponse(ok=False, error=_invalid(AnswerRequest, exc))
        return await service.answer(request)
