from __future__ import annotations

from typing import Any

import pytest

from shared.evaluators.claim_support import claims, support
from shared.evaluators.judge_model import set_judge_factory
from shared.evaluators.rag import citation_recall, cited_ids, entity_recall, hallucination_rate
from tests.evaluator_registry import get, policy_of, run_item_evaluators
from tests.shared.evaluators.test_judges import FakeJudge
from yardstick.api.answer_messages import AnswerResponse, Citation
from yardstick.api.evaluation import EvaluatorSpec

pytestmark = pytest.mark.unit

POOL = (
    "Raise Redis connection pool limits and add saturation alerts. Pool size goes from 50 to 200 "
    "connections, idle connections are closed after 30s, and an alert fires when the pool is 80% saturated."
)
OUTAGE = (
    "Post-mortem: Redis outage on Dec 1st. Root cause: connection pool exhaustion in the checkout "
    "service's Redis client after the Black Friday traffic peak."
)


def answer(text: str, *ids: str, contexts: tuple[str, ...] = (POOL, OUTAGE), **extra: Any) -> dict[str, Any]:
    return {
        "answer": text,
        "citations": [{"id": i, "text": ""} for i in ids],
        "contexts": list(contexts),
        **extra,
    }


EXPECTED = {
    "required_citations": ["pr:redis-outage-postmortem", "pr:redis-pool-limits"],
    "required_entities": ["Black Friday", "200"],
}


def test_citation_recall_counts_required_documents_the_markers_point_at() -> None:
    out = answer(
        "Pool exhaustion. [1] It now holds 200. [1]", "pr:redis-outage-postmortem", "pr:redis-pool-limits"
    )
    assert cited_ids(out) == {"pr:redis-outage-postmortem"}  # [2] is listed but never cited
    result = citation_recall(output=out, expected_output=EXPECTED)
    assert result.value == 0.5 and result.metadata["missing"] == ["pr:redis-pool-limits"]
    both = answer("A [1]. B [2].", "pr:redis-outage-postmortem", "pr:redis-pool-limits")
    assert citation_recall(output=both, expected_output=EXPECTED).value == 1.0
    no_markers = {"answer": "text", "citations": ["pr:redis-pool-limits"]}
    assert citation_recall(output=no_markers, expected_output=EXPECTED).value == 0.5


def test_citation_recall_is_not_measured_without_required_citations() -> None:
    result = citation_recall(output=answer("x"), expected_output={"relevant_ids": []})
    assert result.value is None and result.comment == "no required citations"


def test_hallucination_rate_counts_claims_no_passage_supports() -> None:
    grounded = answer(
        "Root cause: connection pool exhaustion after the Black Friday traffic peak. [1] "
        "Pool size goes from 50 to 200 connections. [2]",
        "a",
        "b",
    )
    assert hallucination_rate(output=grounded).value == 0.0
    invented = answer(
        "Pool size goes from 50 to 200 connections. [1] "
        "The outage was caused by a Kafka broker crash in Frankfurt. [1]",
        "a",
    )
    result = hallucination_rate(output=invented)
    assert result.value == 0.5
    assert result.metadata["unsupported"][0]["claim"].startswith("The outage was caused by a Kafka")


def test_a_changed_number_is_a_hallucination_even_with_the_same_words() -> None:
    result = hallucination_rate(output=answer("Pool size goes from 50 to 300 connections. [1]", "a"))
    assert result.value == 1.0 and result.metadata["unsupported"][0]["missing_numbers"] == ["300"]


def test_hallucination_rate_abstention_no_answer_and_results_as_context() -> None:
    assert hallucination_rate(output={"answer": "Nothing found.", "abstained": True}).value == 0.0
    assert hallucination_rate(output={"answer": ""}).value is None
    from_results = {
        "answer": "Indexing lag exceeded 15 minutes.",
        "results": [{"id": "e", "title": "Indexing lag exceeded 15 minutes", "snippet": ""}],
    }
    assert hallucination_rate(output=from_results).value == 0.0
    assert hallucination_rate(output={"answer": "Indexing lag exceeded 15 minutes."}).value == 1.0


def test_claims_and_support_definitions() -> None:
    assert claims("One. [1] Two! [2][3] [4]\n\nThree.") == ["One. [1]", "Two! [2][3] [4]", "Three."]
    assert support("Yes.", [POOL], 0.6) is None  # nothing claimed
    partial = support("Pool size goes from 50 to 200 in Frankfurt.", [POOL], 0.9)
    assert partial is not None and not partial.supported and 0.7 < partial.coverage < 0.9


def test_entity_recall_is_case_insensitive_and_optional() -> None:
    out = answer("After the black friday peak the pool holds 200.")
    assert entity_recall(output=out, expected_output=EXPECTED).value == 1.0
    half = entity_recall(
        output=answer("Pool exhaustion."), expected_output={"required_entities": ["pool", "Sarah Chen"]}
    )
    assert half.value == 0.5 and half.metadata["missing"] == ["Sarah Chen"]
    assert entity_recall(output=out, expected_output={}).value is None


def test_registered_with_directions_and_typed_args() -> None:
    policy = policy_of([EvaluatorSpec(name="hallucination_rate"), EvaluatorSpec(name="citation_recall")])
    assert policy.criterion("hallucination_rate").describe() == "<= 0.5"
    assert policy.criterion("citation_recall").describe() == ">= 0.5"
    assert get("hallucination_rate").reference_free
    assert set(get("hallucination_rate").arguments.model_fields) >= {"min_support"}


async def test_judges_and_deterministic_evaluators_run_on_an_answer_output() -> None:
    """The judges read an answer target's output: contexts for faithfulness, citation texts for
    citation_precision (fake judge, no network)."""
    reply = AnswerResponse(
        answer="Pool size goes from 50 to 200 connections. [1]",
        citations=[Citation(id="pr:redis-pool-limits", text=POOL)],
        contexts=[POOL, OUTAGE],
    )
    out = reply.model_dump(mode="json", exclude={"schema_version", "ok", "error"})
    judge = FakeJudge(
        answers={
            "Claims": {"claims": ["Pool size goes from 50 to 200 connections"]},
            "ClaimVerdicts": {
                "verifications": [
                    {"claim": "Pool size goes from 50 to 200", "supported": True, "reasoning": "[1]"}
                ]
            },
            "CitationVerdicts": {
                "citations": [
                    {"citation_id": "[1]", "text": "Pool size", "supported": True, "reasoning": "ok"}
                ]
            },
        }
    )
    set_judge_factory(lambda config: judge)
    try:
        scores = await run_item_evaluators(
            [
                EvaluatorSpec(name=n)
                for n in (
                    "citation_recall",
                    "hallucination_rate",
                    "entity_recall",
                    "faithfulness",
                    "citation_precision",
                )
            ],
            input={"query": "How big is the pool?"},
            output=out,
            expected_output=EXPECTED,
            metadata={},
        )
    finally:
        set_judge_factory(None)
    by_name = {s.name: s.value for s in scores}
    assert by_name == {
        "citation_recall": 0.5,
        "hallucination_rate": 0.0,
        "entity_recall": 0.5,
        "faithfulness": 1.0,
        "citation_precision": 1.0,
    }
    assert any("Black Friday" in p for p in judge.prompts)  # faithfulness saw every context
    assert any(POOL in p for p in judge.prompts)  # citation_precision saw the cited text
