"""Run-level evaluators: averages and per-slice breakdowns of item-level scores."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from shared.contracts.evaluation import Evaluation
from shared.evaluators.item_results import as_item_results
from shared.evaluators.registry import register

MISSING_GROUP = "unspecified"
DEFAULT_BREAKDOWN_KEYS = ["category", "difficulty"]


def _mean_of(item_results: list[Any], score_name: str) -> tuple[float | None, int]:
    values = [
        evaluation.numeric
        for result in as_item_results(item_results)
        for evaluation in result.evaluations
        if evaluation.name == score_name and evaluation.numeric is not None
    ]
    return (sum(values) / len(values) if values else None), len(values)


@register("avg_order_correctness", level="run")
def avg_order_correctness(*, item_results: list[Any], **kwargs: Any) -> Evaluation:
    """Mean order_correctness over all items (rounded to 3 places), with the count."""
    avg, count = _mean_of(item_results, "order_correctness")
    if avg is None:
        return Evaluation(name="avg_order_correctness", value=None, comment="no order_correctness scores")
    return Evaluation(
        name="avg_order_correctness",
        value=round(avg, 3),
        comment=f"Average order correctness: {avg:.1%} across {count} items",
        metadata={"count": count},
    )


@register("avg_score", level="run")
def avg_score(*, item_results: list[Any], score: str, **kwargs: Any) -> Evaluation:
    """Mean of any item-level score (``args: {"score": "mrr"}``) → ``avg_<score>``."""
    avg, count = _mean_of(item_results, score)
    name = f"avg_{score}"
    if avg is None:
        return Evaluation(name=name, value=None, comment=f"no {score} scores")
    return Evaluation(
        name=name,
        value=round(avg, 3),
        comment=f"Average {score}: {avg:.3f} across {count} items",
        metadata={"count": count},
    )


@register("score_breakdown", level="run")
def score_breakdown(
    *,
    item_results: list[Any],
    keys: list[str] | None = None,
    scores: list[str] | None = None,
    **kwargs: Any,
) -> list[Evaluation]:
    """Mean of every item-level score per metadata value (default keys: category, difficulty).

    One Evaluation per (key, value, score), named ``"<score>[<key>=<value>]"``, with the count
    in metadata. Items without the key are grouped as ``unspecified``; a default key that no item
    has is left out. ``scores`` limits the breakdown to those score names.
    """
    results = as_item_results(item_results)
    if keys is None:  # the default keys that at least one item has
        keys = [k for k in DEFAULT_BREAKDOWN_KEYS if any(k in r.metadata for r in results)]
    sums: dict[tuple[str, str, str], list[float]] = defaultdict(list)
    for result in results:
        for evaluation in result.evaluations:
            value = evaluation.numeric
            if value is None or (scores is not None and evaluation.name not in scores):
                continue
            for key in keys:
                group = result.metadata.get(key)
                group_name = MISSING_GROUP if group is None else str(group)
                sums[(key, group_name, evaluation.name)].append(value)
    out: list[Evaluation] = []
    for (key, group, score), values in sorted(sums.items()):
        mean = sum(values) / len(values)
        out.append(
            Evaluation(
                name=f"{score}[{key}={group}]",
                value=round(mean, 3),
                comment=f"{score} mean over {len(values)} item(s) with {key}={group}",
                metadata={"key": key, "group": group, "score": score, "count": len(values)},
            )
        )
    if not out:
        return [Evaluation(name="score_breakdown", value=None, comment="no numeric item-level scores")]
    return out
