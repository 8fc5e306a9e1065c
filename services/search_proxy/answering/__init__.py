"""Answers with citations (``search.answer``, ``POST /v1/answer``): retrieve, read the documents,
write sentences that cite them. Offline: :class:`ExtractiveAnswerer`; with a Mistral key:
:class:`MistralAnswerer`."""

from services.search_proxy.answering.draft import AnswerDraft, DraftSentence, render
from services.search_proxy.answering.extractive import ExtractiveAnswerer
from services.search_proxy.answering.mistral import MistralAnswerer
from services.search_proxy.answering.passages import Passage, PassageLookup
from services.search_proxy.answering.service import AnswererNotConfigured, AnswerService

__all__ = [
    "AnswerDraft",
    "AnswerService",
    "AnswererNotConfigured",
    "DraftSentence",
    "ExtractiveAnswerer",
    "MistralAnswerer",
    "Passage",
    "PassageLookup",
    "render",
]
