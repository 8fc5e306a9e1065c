"""An answer before rendering: sentences, each with the documents it comes from.

Rendering numbers the cited documents in order of first citation and ends every sentence with
its markers: ``"Pool size goes from 50 to 200 connections. [1]"``; ``citations[n-1]`` is document n.
"""

from __future__ import annotations

from pydantic import BaseModel, Field

from services.search_proxy.answering.passages import Passage
from yardstick.api.answer_messages import Citation

ABSTENTION = "None of the retrieved documents answers this question."


class DraftSentence(BaseModel):
    text: str
    source_ids: list[str] = Field(default_factory=list, description="Passages the sentence comes from")


class AnswerDraft(BaseModel):
    sentences: list[DraftSentence] = Field(default_factory=list)
    abstained: bool = False

    @classmethod
    def abstention(cls) -> AnswerDraft:
        return cls(sentences=[], abstained=True)


def render(draft: AnswerDraft, passages: list[Passage]) -> tuple[str, list[Citation]]:
    """The answer text with ``[n]`` markers and the citations they point at (unknown ids dropped)."""
    if draft.abstained or not draft.sentences:
        return ABSTENTION, []
    by_id = {p.id: p for p in passages}
    order: list[str] = []
    rendered: list[str] = []
    for sentence in draft.sentences:
        markers = []
        for source in dict.fromkeys(sentence.source_ids):
            if source not in by_id:
                continue
            if source not in order:
                order.append(source)
            markers.append(f"[{order.index(source) + 1}]")
        text = sentence.text.strip()
        rendered.append(f"{text} {''.join(markers)}" if markers else text)
    citations = [
        Citation(id=i, title=by_id[i].title, text=by_id[i].text, source_type=by_id[i].source_type)
        for i in order
    ]
    return " ".join(rendered), citations
