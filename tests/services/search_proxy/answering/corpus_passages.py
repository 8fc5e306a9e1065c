"""Passages of the real corpus file, looked up as a search backend would return them."""

from __future__ import annotations

from functools import cache

from services.search_proxy.answering import Passage, PassageLookup
from services.search_proxy.corpus import load_corpus
from services.search_proxy.settings import DEFAULT_CORPUS
from yardstick.api.search_messages import SearchHit


@cache
def lookup() -> PassageLookup:
    return PassageLookup(load_corpus(DEFAULT_CORPUS).documents())


def passages(*ids: str) -> list[Passage]:
    return [lookup().passage(SearchHit(id=i, score=1.0, rank=n)) for n, i in enumerate(ids, start=1)]
