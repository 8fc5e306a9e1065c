"""Deterministic RAG answer evaluators (tier 2 without a judge): ``citation_recall``,
``hallucination_rate`` and ``entity_recall``.

``output`` is what the ``answer`` target returns (``shared.contracts.AnswerResponse`` as JSON):
``answer`` (sentences ending with ``[n]`` markers), ``citations`` (``[{id, text, …}]``, ``[n]`` is
``citations[n-1]``; plain id strings are accepted too), ``contexts`` (the retrieved passages;
without them the ``title``/``snippet`` of ``results``) and ``abstained``. ``expected_output`` holds
``required_citations`` and ``required_entities`` (the golden format's ``requiredCitations`` /
``requiredEntities``). The LLM judges (``faithfulness``, ``citation_precision``,
``answer_relevancy``) read the same output.
"""

from __future__ import annotations

import re
from typing import Annotated, Any

from pydantic import Field

from shared.evaluators.claim_support import claims, support
from shared.evaluators.judge_inputs import answer_text, context_texts
from shared.evaluators.payload import as_dict, as_list
from shared.evaluators.registry import register
from yardstick.api.evaluation import Evaluation
from yardstick.api.metric_spec import MetricSpec

_MARKER = re.compile(r"\[(\d+)\]")
DEFAULT_MIN_SUPPORT = 0.6


def _citation_ids(output: Any) -> list[str]:
    ids: list[str] = []
    for raw in as_list(as_dict(output, "output").get("citations"), "output.citations"):
        ids.append(raw if isinstance(raw, str) else str(as_dict(raw, "citation").get("id", "")))
    return ids


def cited_ids(output: Any) -> set[str]:
    """Documents the answer cites: those its ``[n]`` markers point at; every listed citation when
    the answer uses no markers."""
    ids = _citation_ids(output)
    markers = {int(n) for n in _MARKER.findall(answer_text(output))}
    if not markers:
        return {i for i in ids if i}
    return {ids[n - 1] for n in markers if 1 <= n <= len(ids) and ids[n - 1]}


def _required(expected_output: Any, key: str) -> list[str]:
    return [str(v) for v in as_list(as_dict(expected_output, "expected_output").get(key), key)]


@register("citation_recall", metrics={"citation_recall": MetricSpec.higher()})
def citation_recall(
    *, input: Any = None, output: Any, expected_output: Any, metadata: Any = None, **kwargs: Any
) -> Evaluation:
    """Share of the case's required citations (``expected_output.required_citations``) the answer
    cites (see :func:`cited_ids`); None when the case requires none (e.g. a null query)."""
    required = list(dict.fromkeys(_required(expected_output, "required_citations")))
    if not required:
        return Evaluation(name="citation_recall", value=None, comment="no required citations")
    cited = cited_ids(output)
    missing = [r for r in required if r not in cited]
    found = len(required) - len(missing)
    return Evaluation(
        name="citation_recall",
        value=round(found / len(required), 6),
        comment=f"{found}/{len(required)} required citations present",
        metadata={"missing": missing, "cited": sorted(cited)},
    )


@register(
    "hallucination_rate",
    reference_free=True,
    metrics={"hallucination_rate": MetricSpec.lower(regression=0.02)},
)
def hallucination_rate(
    *,
    input: Any = None,
    output: Any,
    expected_output: Any = None,
    metadata: Any = None,
    min_support: Annotated[float, Field(gt=0, le=1)] = DEFAULT_MIN_SUPPORT,
    **kwargs: Any,
) -> Evaluation:
    """Share of the answer's claims that no retrieved passage supports (lower is better).

    Claims are the answer's sentences, citation markers removed; a claim is supported when one
    passage (``output.contexts``, else the results' title + snippet, plus the cited texts) holds
    at least ``min_support`` (default 0.6) of its content words and every number it states (see
    :mod:`shared.evaluators.claim_support`). Value = unsupported claims / claims. An answer that
    abstains (``output.abstained``) claims nothing: 0.0. No answer text, or no claim with content
    words: None (not measured)."""
    out = as_dict(output, "output")
    if out.get("abstained"):
        return Evaluation(name="hallucination_rate", value=0.0, comment="abstained: nothing claimed")
    answer = answer_text(output)
    passages = context_texts(output) + [
        str(as_dict(c, "citation").get("text", ""))
        for c in as_list(out.get("citations"), "output.citations")
        if not isinstance(c, str)
    ]
    checked = [s for s in (support(c, passages, min_support) for c in claims(answer)) if s is not None]
    if not checked:
        return Evaluation(name="hallucination_rate", value=None, comment="no claims in the answer")
    unsupported = [s for s in checked if not s.supported]
    return Evaluation(
        name="hallucination_rate",
        value=round(len(unsupported) / len(checked), 6),
        comment=f"{len(unsupported)}/{len(checked)} claims not supported by the {len(passages)} passages",
        metadata={
            "unsupported": [
                {
                    "claim": s.claim,
                    "coverage": round(s.coverage, 3),
                    "missing_numbers": list(s.missing_numbers),
                }
                for s in unsupported
            ],
            "min_support": min_support,
        },
    )


def _normalise(text: str) -> str:
    return " ".join(text.lower().split())


@register("entity_recall", metrics={"entity_recall": MetricSpec.higher()})
def entity_recall(
    *, input: Any = None, output: Any, expected_output: Any, metadata: Any = None, **kwargs: Any
) -> Evaluation:
    """Share of the case's required entities (``expected_output.required_entities``: people,
    services, numbers) the answer names (case-insensitive); None when the case requires none."""
    required = list(dict.fromkeys(_required(expected_output, "required_entities")))
    if not required:
        return Evaluation(name="entity_recall", value=None, comment="no required entities")
    answer = _normalise(answer_text(output))
    missing = [e for e in required if _normalise(e) not in answer]
    found = len(required) - len(missing)
    return Evaluation(
        name="entity_recall",
        value=round(found / len(required), 6),
        comment=f"{found}/{len(required)} required entities named",
        metadata={"missing": missing},
    )
