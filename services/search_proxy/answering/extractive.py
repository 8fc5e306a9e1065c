"""The offline answerer: deterministic extractive answers.

1. Split every retrieved passage into sentences.
2. Score each sentence: the IDF-weighted share of the question's content words it contains
   (IDF over the sentences of this answer's passages), times a rank prior ``1 / (1 + 0.25 (r - 1))``
   for the document at rank r.
3. Keep the best ``max_sentences`` sentences scoring at least ``min_score``, at most
   ``per_document`` from one document, each citing its document. A question asking who or when
   also gets the byline ("Pushed by … on …") of the best document.
4. Abstain when nothing was retrieved or no sentence reaches ``min_score``.

Same question and same retrieved documents: same answer, byte for byte."""

from __future__ import annotations

import math
from dataclasses import dataclass

from services.search_proxy.answering.draft import AnswerDraft, DraftSentence
from services.search_proxy.answering.passages import Passage
from services.search_proxy.answering.sentences import asks_who_or_when, sentences, terms

BYLINE_PREFIXES = ("Pushed by ", "Opened by ", "Assigned to ")


@dataclass(frozen=True)
class _Candidate:
    text: str
    source_id: str
    rank: int
    position: int
    score: float


class ExtractiveAnswerer:
    name = "extractive"

    def __init__(self, min_score: float = 0.34, per_document: int = 2) -> None:
        self.min_score = min_score
        self.per_document = per_document

    async def answer(self, question: str, passages: list[Passage], max_sentences: int) -> AnswerDraft:
        return self.draft(question, passages, max_sentences)

    def draft(self, question: str, passages: list[Passage], max_sentences: int) -> AnswerDraft:
        wanted = terms(question)
        split = [(rank, p, sentences(p.text)) for rank, p in enumerate(passages, start=1)]
        all_sentences = [terms(s) for _, _, ss in split for s in ss]
        if not wanted or not all_sentences:
            return AnswerDraft.abstention()
        idf = {w: math.log(1 + len(all_sentences) / (1 + sum(w in s for s in all_sentences))) for w in wanted}
        total = sum(idf.values())
        candidates = [
            _Candidate(text, p.id, rank, pos, self._score(terms(text), idf, total, rank))
            for rank, p, ss in split
            for pos, text in enumerate(ss)
        ]
        ranked = sorted(candidates, key=lambda c: (-c.score, c.rank, c.position))
        chosen: list[_Candidate] = []
        for candidate in ranked:
            if candidate.score < self.min_score or len(chosen) >= max_sentences:
                break
            same_doc = sum(c.source_id == candidate.source_id for c in chosen)
            if same_doc < self.per_document and all(c.text != candidate.text for c in chosen):
                chosen.append(candidate)
        if not chosen:
            return AnswerDraft.abstention()
        if asks_who_or_when(question):
            chosen = self._with_byline(chosen, candidates, max_sentences)
        return AnswerDraft(sentences=[DraftSentence(text=c.text, source_ids=[c.source_id]) for c in chosen])

    @staticmethod
    def _score(sentence_terms: set[str], idf: dict[str, float], total: float, rank: int) -> float:
        matched = sum(weight for word, weight in idf.items() if word in sentence_terms)
        return (matched / total) / (1 + 0.25 * (rank - 1)) if total else 0.0

    @staticmethod
    def _with_byline(
        chosen: list[_Candidate], candidates: list[_Candidate], max_sentences: int
    ) -> list[_Candidate]:
        best = chosen[0].source_id
        if any(c.source_id == best and c.text.startswith(BYLINE_PREFIXES) for c in chosen):
            return chosen
        bylines = [c for c in candidates if c.source_id == best and c.text.startswith(BYLINE_PREFIXES)]
        if not bylines:
            return chosen
        kept = chosen[: max(1, max_sentences - 1)]
        return [*kept, bylines[0]]
