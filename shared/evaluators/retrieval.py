"""The tier-1 retrieval evaluators (definitions in :mod:`.retrieval_metrics`).

``output = {"results": [{"id", "score", "rank", …}], "latency_ms": float}`` (ordered by
``rank`` when every hit has one, else list order); ``expected_output = {"relevant_ids": [...],
"graded_relevance": {id: 0..3}}`` (graded optional). A query with no relevant ids is a *null
query*: its rank metrics are None ("no relevant ids") and ``null_query_correct`` says whether the
system correctly returned nothing (or nothing scored above ``score_threshold``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import partial
from typing import Annotated, Any

from pydantic import Field

from shared.evaluators.payload import MalformedPayload, as_dict, as_list, require_key
from shared.evaluators.registry import EvaluatorFn, register
from shared.evaluators.retrieval_metrics import (
    Judgements,
    average_precision,
    dedupe,
    hit_at,
    ndcg_at,
    precision_at,
    recall_at,
    reciprocal_rank,
)
from yardstick.api.evaluation import Evaluation
from yardstick.api.metric_spec import DEFAULT_REGRESSION_THRESHOLD, MetricSpec

DEFAULT_KS = [3, 5, 10]
NO_RELEVANT = "no relevant ids"


def _hits(output: Any) -> list[dict[str, Any]]:
    hits = [
        as_dict(h, "search hit") for h in as_list(as_dict(output, "output").get("results"), "output.results")
    ]
    for hit in hits:
        if "id" not in hit:
            raise MalformedPayload(f"search hit without an id: {hit!r}")
    if hits and all(isinstance(h.get("rank"), int | float) for h in hits):
        hits = sorted(hits, key=lambda h: float(h["rank"]))
    return hits


def _ranking(output: Any) -> list[str]:
    return dedupe([str(h["id"]) for h in _hits(output)])


def _judgements(expected_output: Any, evaluator: str) -> Judgements:
    relevant = [
        str(i) for i in as_list(require_key(expected_output, "relevant_ids", evaluator), "relevant_ids")
    ]
    graded = as_dict(as_dict(expected_output, "expected_output").get("graded_relevance"), "graded_relevance")
    return Judgements(relevant, graded)


def _null_query(output: Any, judgements: Judgements, score_threshold: float | None) -> Evaluation:
    name = "null_query_correct"
    if judgements.relevant:
        return Evaluation(name=name, value=None, comment="not a null query (has relevant ids)")
    hits = _hits(output)
    if score_threshold is not None:
        hits = [h for h in hits if float(h.get("score") or 0.0) > score_threshold]
    above = f" above score {score_threshold}" if score_threshold is not None else ""
    if hits:
        return Evaluation(
            name=name,
            value=0.0,
            comment=f"Null query returned {len(hits)} result(s){above}",
            metadata={"returned": [str(h["id"]) for h in hits[:10]]},
        )
    return Evaluation(name=name, value=1.0, comment=f"Null query correctly returned nothing{above}")


def _metric(
    name: str, judgements: Judgements, compute: Callable[[], float], ranking: list[str]
) -> Evaluation:
    if not judgements.relevant:
        return Evaluation(name=name, value=None, comment=NO_RELEVANT)
    value = compute()
    return Evaluation(
        name=name,
        value=value,
        comment=f"{name} = {value:.3f} ({len(judgements.relevant)} relevant, {len(ranking)} retrieved)",
    )


def _all_metrics(ranking: list[str], judgements: Judgements, ks: list[int]) -> list[Evaluation]:
    out = [_metric("mrr", judgements, lambda: reciprocal_rank(ranking, judgements), ranking)]
    at_k: list[tuple[str, Callable[[list[str], Judgements, int], float]]] = [
        ("recall", recall_at),
        ("precision", precision_at),
        ("ndcg", ndcg_at),
        ("hit", hit_at),
    ]
    for k in ks:
        for metric, compute in at_k:
            out.append(
                _metric(f"{metric}@{k}", judgements, partial(compute, ranking, judgements, k), ranking)
            )
    out.append(_metric("map", judgements, lambda: average_precision(ranking, judgements), ranking))
    return out


RANK_METRICS = ("recall", "precision", "ndcg", "hit")
RECALL_TO_PASS = 0.5


def retrieval_metrics(args: Mapping[str, Any]) -> dict[str, MetricSpec]:
    """A query passes when at least half its relevant documents are in the top K (K the largest
    cut-off); a null query when nothing is returned. The other metrics do not gate an item:
    precision@K is capped by (relevant / K), and mrr, ndcg, hit and map rank what recall counts.
    Every one is higher-is-better in [0, 1] and compared between runs (a drop over 0.05 regresses)."""
    ks = args.get("ks") or DEFAULT_KS
    ranked = MetricSpec.informational("higher_is_better", regression=DEFAULT_REGRESSION_THRESHOLD)
    specs = {f"{family}@{k}": ranked for family in RANK_METRICS for k in ks}
    specs.update(mrr=ranked, map=ranked, null_query_correct=MetricSpec.higher(1.0))
    specs[f"recall@{max(ks)}"] = MetricSpec.higher(RECALL_TO_PASS)
    return specs


@register("retrieval", inline=True, metrics=retrieval_metrics)
def retrieval(
    *,
    input: Any = None,
    output: Any,
    expected_output: Any,
    metadata: Any = None,
    ks: list[Annotated[int, Field(ge=1)]] | None = None,
    score_threshold: float | None = None,
    **kwargs: Any,
) -> list[Evaluation]:
    """mrr, recall@k, precision@k, ndcg@k, hit@k (for each k in ``ks``, default 3/5/10) and map;
    null queries also get null_query_correct."""
    judgements = _judgements(expected_output, "retrieval")
    ks = ks or DEFAULT_KS
    if any(k < 1 for k in ks):
        raise ValueError(f"every k in ks must be ≥ 1, got {ks}")
    evaluations = _all_metrics(_ranking(output), judgements, ks)
    if not judgements.relevant:
        evaluations.append(_null_query(output, judgements, score_threshold))
    return evaluations


@register("null_query_correct", inline=True, metrics={"null_query_correct": MetricSpec.higher(1.0)})
def null_query_correct(
    *,
    input: Any = None,
    output: Any,
    expected_output: Any,
    metadata: Any = None,
    score_threshold: float | None = None,
    **kwargs: Any,
) -> Evaluation:
    """1.0 when a query with no relevant ids returns nothing (above ``score_threshold``), else 0.0."""
    return _null_query(output, _judgements(expected_output, "null_query_correct"), score_threshold)


@register("mrr", inline=True, metrics={"mrr": MetricSpec.higher()})
def mrr(
    *, input: Any = None, output: Any, expected_output: Any, metadata: Any = None, **kwargs: Any
) -> Evaluation:
    """Reciprocal rank of the first relevant result."""
    judgements, ranking = _judgements(expected_output, "mrr"), _ranking(output)
    return _metric("mrr", judgements, lambda: reciprocal_rank(ranking, judgements), ranking)


@register("map", inline=True, metrics={"map": MetricSpec.higher()})
def map_(
    *, input: Any = None, output: Any, expected_output: Any, metadata: Any = None, **kwargs: Any
) -> Evaluation:
    """Average precision over the whole ranking."""
    judgements, ranking = _judgements(expected_output, "map"), _ranking(output)
    return _metric("map", judgements, lambda: average_precision(ranking, judgements), ranking)


def _at_k(metric: str, compute: Callable[[list[str], Judgements, int], float], doc: str) -> EvaluatorFn:
    def evaluator(
        *,
        input: Any = None,
        output: Any,
        expected_output: Any,
        metadata: Any = None,
        k: int = 5,
        **kwargs: Any,
    ) -> Evaluation:
        judgements, ranking = _judgements(expected_output, f"{metric}_at_k"), _ranking(output)
        return _metric(f"{metric}@{k}", judgements, lambda: compute(ranking, judgements, k), ranking)

    evaluator.__doc__ = doc
    evaluator.__name__ = f"{metric}_at_k"
    declared = lambda args: {f"{metric}@{args.get('k', 5)}": MetricSpec.higher()}  # noqa: E731
    return register(f"{metric}_at_k", metrics=declared)(evaluator)


recall_at_k = _at_k("recall", recall_at, "Recall@k (args: k, default 5).")
precision_at_k = _at_k("precision", precision_at, "Precision@k, divided by k (args: k, default 5).")
ndcg_at_k = _at_k("ndcg", ndcg_at, "NDCG@k with linear gains (args: k, default 5).")
hit_at_k = _at_k("hit", hit_at, "1 if a relevant result is in the top k (args: k, default 5).")
