"""Prompts of the golden-set generator and its critic."""

from __future__ import annotations

import json

from pydantic import BaseModel

from services.search_proxy.corpus import Corpus


class PromptEvent(BaseModel):
    id: str
    title: str
    description: str
    actor: str
    occurred_at: str


def prompt_events(corpus: Corpus) -> list[PromptEvent]:
    return [
        PromptEvent(
            id=doc.id,
            title=doc.title,
            description=doc.body,
            actor=doc.actor,
            occurred_at=doc.occurred_at.isoformat(),
        )
        for doc in corpus.documents()
    ]


def generation_prompt(events: list[PromptEvent], n: int, reference_time: str, wanted_types: list[str]) -> str:
    listing = json.dumps([e.model_dump() for e in events], indent=1)
    return f"""You are a software engineer using a search system over engineering events.
Today is {reference_time}.

Engineering events:
{listing}

Generate {n} diverse, natural search queries that a developer might ask.

Requirements:
- Conversational and realistic ("What broke in checkout?", not "checkout service errors").
- Prefer these query types for this batch: {", ".join(wanted_types)}. Types: temporal (time-based),
  actor (person-based), technical (topic), status (state of things), multi-hop (needs several
  events), null (nothing in the events answers it: expected_event_ids must be empty).
- For each query list the ids of the events that should be returned (exact ids from above).
- Vary complexity: simple (1 result), medium (2-3), complex (4+ or needs reasoning).
- Give your reasoning for why those events match."""


def critic_prompt(query: str, query_type: str, expected: list[PromptEvent]) -> str:
    listing = json.dumps([e.model_dump() for e in expected], indent=1) if expected else "(none: null query)"
    return f"""Evaluate this search query and its expected results.

Query: "{query}"  (type: {query_type})

Expected results:
{listing}

Score each dimension 1-5:
1. query_naturalness: is this how a real developer would ask? (1 robotic, 5 natural)
2. relevance_correctness: do the expected results actually match the query? (1 wrong, 5 perfect)
3. answer_feasibility: could a search system realistically retrieve these? (1 impossible, 5 easy)
4. overall_score: holistic quality (1 unusable, 5 excellent)

Give your reasoning and list any issues."""
