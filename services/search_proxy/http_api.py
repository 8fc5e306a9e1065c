"""HTTP API: ``POST /v1/search``, ``POST /v1/answer`` (same models as NATS; 422 on bad input) and
``GET /healthz``."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, FastAPI, HTTPException, Request, Response
from pydantic import BaseModel, Field

from services.search_proxy.answering import AnswerService
from services.search_proxy.search_filters import InvalidFilters, parse_filters
from services.search_proxy.search_service import SearchService
from shared.db.health import PostgresHealth, postgres_health
from yardstick.api.answer_messages import AnswerRequest, AnswerResponse
from yardstick.api.nats_connection import ConnectionHealth
from yardstick.api.search_messages import SearchRequest, SearchResponse


class Health(BaseModel):
    status: str
    default_backend: str
    corpus_version: str | None
    nats: ConnectionHealth
    postgres: PostgresHealth = Field(description="The corpus index's server (searches of the corpus need it)")


def _service(request: Request) -> SearchService:
    service: SearchService = request.app.state.search_service
    return service


def _answers(request: Request) -> AnswerService:
    service: AnswerService = request.app.state.answer_service
    return service


ServiceDep = Annotated[SearchService, Depends(_service)]
AnswersDep = Annotated[AnswerService, Depends(_answers)]

router = APIRouter(tags=["search"])


@router.post("/v1/search", response_model=SearchResponse)
async def search(body: SearchRequest, service: ServiceDep) -> SearchResponse:
    try:
        parse_filters(body.filters)
    except InvalidFilters as exc:
        raise HTTPException(status_code=422, detail=str(exc)) from exc
    return await service.search(body)


@router.post("/v1/answer", response_model=AnswerResponse)
async def answer(body: AnswerRequest, answers: AnswersDep) -> AnswerResponse:
    """Retrieve, then answer with ``[n]`` citations (``ok=false`` with the reason on failure)."""
    return await answers.answer(body)


@router.get("/healthz", response_model=Health)
async def healthz(request: Request, response: Response) -> Health:
    """503 while NATS is unreachable: ``search.query`` cannot be answered then (HTTP still can)."""
    nats: ConnectionHealth = request.app.state.nats_health
    if not nats.connected:
        response.status_code = 503
    return Health(
        status="ok" if nats.connected else "nats unreachable: reconnecting",
        default_backend=request.app.state.default_backend,
        corpus_version=request.app.state.corpus_version,
        nats=nats,
        postgres=await postgres_health(request.app.state.engine),
    )


def install_routes(app: FastAPI) -> None:
    app.include_router(router)
