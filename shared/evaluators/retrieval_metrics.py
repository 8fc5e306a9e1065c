"""Ranked-retrieval metrics for one query, following trec_eval's definitions.

- relevance: ``graded_relevance[id]`` when given, else 1 for ids in ``relevant_ids``, else 0;
  a document is relevant when its grade is ≥ 1.
- ``mrr``: 1 / rank of the first relevant document (0 if none retrieved).
- ``recall@k``: relevant documents in the top k / all relevant documents.
- ``precision@k``: relevant documents in the top k / k (even when fewer than k were retrieved).
- ``ndcg@k``: Σ_{rank ≤ k} grade / log2(rank + 1), over the same sum for the ideal ranking of
  every document with a positive grade (cut at k; a 0.5 grade counts in both, so ndcg ≤ 1).
  Linear gains (trec_eval / Järvelin), not 2^g - 1.
- ``hit@k``: 1 if any relevant document is in the top k.
- ``map``: average precision over the whole ranking: Σ precision@rank at each relevant
  document / number of relevant documents.
"""

from __future__ import annotations

import math
from collections.abc import Mapping


class Judgements:
    """The relevance judgements of one query."""

    def __init__(self, relevant_ids: list[str], graded_relevance: Mapping[str, float] | None = None) -> None:
        grades: dict[str, float] = dict.fromkeys(relevant_ids, 1.0)
        grades.update({str(k): float(v) for k, v in (graded_relevance or {}).items()})
        self.grades = grades
        self.relevant = frozenset(doc for doc, grade in grades.items() if grade >= 1)

    def grade(self, doc_id: str) -> float:
        return self.grades.get(doc_id, 0.0)


def dedupe(ranking: list[str]) -> list[str]:
    """The ranking with repeated ids dropped (first occurrence kept)."""
    return list(dict.fromkeys(ranking))


def reciprocal_rank(ranking: list[str], judgements: Judgements) -> float:
    for rank, doc in enumerate(ranking, start=1):
        if doc in judgements.relevant:
            return 1.0 / rank
    return 0.0


def _hits(ranking: list[str], judgements: Judgements, k: int) -> int:
    return sum(1 for doc in ranking[:k] if doc in judgements.relevant)


def recall_at(ranking: list[str], judgements: Judgements, k: int) -> float:
    if not judgements.relevant:
        return 0.0
    return _hits(ranking, judgements, k) / len(judgements.relevant)


def precision_at(ranking: list[str], judgements: Judgements, k: int) -> float:
    return _hits(ranking, judgements, k) / k if k > 0 else 0.0


def hit_at(ranking: list[str], judgements: Judgements, k: int) -> float:
    return 1.0 if _hits(ranking, judgements, k) else 0.0


def ndcg_at(ranking: list[str], judgements: Judgements, k: int) -> float:
    dcg = sum(judgements.grade(doc) / math.log2(rank + 1) for rank, doc in enumerate(ranking[:k], start=1))
    # the ideal ranking holds every document with a positive gain (fractional grades included),
    # so DCG can never exceed it: ndcg ≤ 1
    ideal = sorted((g for g in judgements.grades.values() if g > 0), reverse=True)[:k]
    idcg = sum(grade / math.log2(rank + 1) for rank, grade in enumerate(ideal, start=1))
    return dcg / idcg if idcg > 0 else 0.0


def average_precision(ranking: list[str], judgements: Judgements) -> float:
    if not judgements.relevant:
        return 0.0
    found = 0
    total = 0.0
    for rank, doc in enumerate(ranking, start=1):
        if doc in judgements.relevant:
            found += 1
            total += found / rank
    return total / len(judgements.relevant)
