"""Structured outputs of the generator and the critic (``with_structured_output`` schemas)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from shared.datasets.retrieval_golden import QueryType


class GeneratedQuery(BaseModel):
    query: str = Field(min_length=5, max_length=200, description="A natural developer question")
    query_type: QueryType = Field(description="temporal, actor, technical, status, multi-hop or null")
    expected_event_ids: list[str] = Field(
        max_length=5, description="Corpus ids that answer the query; empty for a null query"
    )
    complexity: Literal["simple", "medium", "complex"]
    reasoning: str = Field(description="Why these events match")


class QueryBatch(BaseModel):
    queries: list[GeneratedQuery] = Field(min_length=1, max_length=10)


class CriticScore(BaseModel):
    query_naturalness: int = Field(ge=1, le=5, description="1 robotic .. 5 natural")
    relevance_correctness: int = Field(ge=1, le=5, description="Do the expected events match? 1..5")
    answer_feasibility: int = Field(ge=1, le=5, description="Could a system retrieve them? 1..5")
    overall_score: int = Field(ge=1, le=5, description="Holistic quality 1 unusable .. 5 excellent")
    reasoning: str
    issues: list[str] = Field(default_factory=list)


class ScoredQuery(BaseModel):
    generated: GeneratedQuery
    score: CriticScore
