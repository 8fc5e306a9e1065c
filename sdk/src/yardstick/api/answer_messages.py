"""Messages of the search-proxy's answers: ``search.answer`` and ``POST /v1/answer``.

An answer is retrieval plus generation: the proxy searches, reads the retrieved documents and
writes an answer whose sentences end with ``[n]`` markers; ``n`` is the 1-based position of the
cited document in ``citations``. ``contexts`` are the passages the answer was written from (what
the faithfulness judge and ``hallucination_rate`` check the answer against)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from yardstick.api.search_messages import SearchHit, SearchMode

SCHEMA_VERSION = 1

Answerer = Literal["extractive", "mistral", "openai"]


class AnswerRequest(BaseModel):
    schema_version: int = SCHEMA_VERSION
    query: str = Field(min_length=1, max_length=1000, description="The question to answer")
    mode: SearchMode = Field(default="balanced", description="Search mode of the retrieval step")
    limit: int = Field(default=5, ge=1, le=20, description="Documents retrieved and read")
    backend: Literal["corpus", "http"] | None = Field(default=None, description="None = service default")
    bypass_cache: bool = False
    degrade: float = Field(
        default=0.0, ge=0, le=1, description="FAULT INJECTION: retrieval returns nothing for this fraction"
    )
    answerer: Answerer | None = Field(
        default=None,
        description="None: the proxy's LLM answerer (mistral or openai, ANSWER_PROVIDER) when it has one, "
        "else extractive",
    )
    max_sentences: int = Field(default=3, ge=1, le=10, description="Sentences in the answer at most")


class Citation(BaseModel):
    id: str = Field(description="Document id, e.g. pr:redis-outage-postmortem")
    title: str = ""
    text: str = Field(default="", description="The cited document's passage")
    source_type: str = ""


class AnswerResponse(BaseModel):
    schema_version: int = SCHEMA_VERSION
    ok: bool = True
    error: str | None = None
    answer: str = Field(default="", description="Sentences ending with [n] citation markers")
    citations: list[Citation] = Field(default_factory=list, description="[n] refers to citations[n-1]")
    abstained: bool = Field(default=False, description="True when nothing retrieved answers the question")
    contexts: list[str] = Field(default_factory=list, description="Passages of the retrieved documents")
    results: list[SearchHit] = Field(default_factory=list, description="The retrieval step's hits")
    answerer: str = Field(default="", description="'extractive', 'mistral:<model>' or 'openai:<model>'")
    latency_ms: float = 0.0
    retrieval_latency_ms: float = 0.0
    backend: str = "corpus"
