"""The text an answer is written from: one passage per retrieved document.

Corpus documents are read in full (title, body and a byline naming who and when, so "who fixed…"
can be answered); a hit the corpus does not know (the upstream ``http`` backend) falls back to its
title and snippet."""

from __future__ import annotations

from collections.abc import Iterable

from pydantic import BaseModel

from services.search_proxy.corpus import CorpusDocument
from yardstick.api.search_messages import SearchHit

_BYLINE = {"github_push": "Pushed by {actor} on {date}.", "github_pr": "Opened by {actor} on {date}."}


class Passage(BaseModel, frozen=True):
    id: str
    title: str
    text: str
    source_type: str = ""


def _sentence(text: str) -> str:
    text = text.strip()
    return text if text.endswith((".", "!", "?")) else f"{text}."


def byline(doc: CorpusDocument) -> str:
    """'Pushed by Sarah Chen <sarah@acme.com> on 1 Dec 2025.' ('' when nobody is named)."""
    if not doc.actor:
        return ""
    date = f"{doc.occurred_at.day} {doc.occurred_at:%b %Y}"
    template = _BYLINE.get(doc.source_type, "Assigned to {actor}.")
    return template.format(actor=doc.actor, date=date)


def document_passage(doc: CorpusDocument) -> Passage:
    parts = [_sentence(doc.title), " ".join(doc.body.split()), byline(doc)]
    return Passage(
        id=doc.id, title=doc.title, text=" ".join(p for p in parts if p), source_type=doc.source_type
    )


class PassageLookup:
    """Document id -> passage, for the documents this proxy indexes."""

    def __init__(self, documents: Iterable[CorpusDocument] = ()) -> None:
        self._passages = {doc.id: document_passage(doc) for doc in documents}

    def passage(self, hit: SearchHit) -> Passage:
        known = self._passages.get(hit.id)
        if known is not None:
            return known
        text = " ".join(p for p in (_sentence(hit.title) if hit.title else "", hit.snippet.strip()) if p)
        return Passage(id=hit.id, title=hit.title, text=text, source_type=hit.source_type)
