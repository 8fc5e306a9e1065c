"""Answers with citations (``search.answer``, ``POST /v1/answer``): retrieve, read the documents,
write sentences that cite them. Offline: :class:`ExtractiveAnswerer`; with a model configured
(Mistral or any OpenAI-compatible endpoint): :class:`LlmAnswerer`."""

from services.search_proxy.answering.draft import AnswerDraft, DraftSentence, render
from services.search_proxy.answering.extractive import ExtractiveAnswerer
from services.search_proxy.answering.llm_answerer import LlmAnswerer, llm_answerer
from services.search_proxy.answering.passages import Passage, PassageLookup
from services.search_proxy.answering.service import AnswererNotConfigured, AnswerService

__all__ = [
    "AnswerDraft",
    "AnswerService",
    "AnswererNotConfigured",
    "DraftSentence",
    "ExtractiveAnswerer",
    "LlmAnswerer",
    "Passage",
    "PassageLookup",
    "llm_answerer",
    "render",
]
