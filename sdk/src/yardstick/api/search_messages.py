"""Messages of the search-proxy service: ``search.query`` and ``POST /v1/search``."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

SCHEMA_VERSION = 1

SearchMode = Literal["fast", "balanced", "thorough"]


class SearchRequest(BaseModel):
    schema_version: int = SCHEMA_VERSION
    query: str = Field(min_length=1, max_length=1000)
    mode: SearchMode = "balanced"
    limit: int = Field(default=10, ge=1, le=100)
    offset: int = Field(default=0, ge=0)
    filters: dict[str, Any] = Field(default_factory=dict, description="e.g. {'source_type': 'github_pr'}")
    backend: Literal["corpus", "http"] | None = Field(default=None, description="None = service default")
    bypass_cache: bool = False
    degrade: float = Field(
        default=0.0, ge=0, le=1, description="FAULT INJECTION: drop results for this fraction of queries"
    )


class SearchHit(BaseModel):
    id: str
    score: float
    rank: int = Field(ge=1)
    title: str = ""
    snippet: str = ""
    source_type: str = ""


class SearchResponse(BaseModel):
    schema_version: int = SCHEMA_VERSION
    ok: bool = True
    error: str | None = None
    results: list[SearchHit] = Field(default_factory=list)
    latency_ms: float = 0.0
    backend: str = "corpus"
    cached: bool = False
