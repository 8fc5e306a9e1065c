from __future__ import annotations

import json
from pathlib import Path

import pytest

from services.search_proxy.corpus import load_corpus
from services.search_proxy.settings import DEFAULT_CORPUS
from shared.datasets.retrieval_golden import (
    QUERY_TYPES,
    GoldenFileError,
    check_ids_exist,
    golden_file_to_dataset,
    load_golden,
    missing_ids,
    to_dataset_items,
)

pytestmark = pytest.mark.unit

GOLDEN = DEFAULT_CORPUS.parent / "golden-v1.json"


def test_golden_v1_has_50_cases_of_every_type_resolving_in_the_corpus() -> None:
    golden = load_golden(GOLDEN)
    assert len(golden.cases) == 50
    assert {case.query_type for case in golden.cases} == set(QUERY_TYPES)
    assert all(case.source == "manual" for case in golden.cases)
    check_ids_exist(golden, load_corpus(DEFAULT_CORPUS).ids)
    for case in golden.cases:
        if case.query_type == "null":
            assert case.expected_observation_ids == []
        else:
            assert case.expected_observation_ids, case.id
            assert set(case.graded_relevance or {}) == set(case.expected_observation_ids), case.id


def test_to_dataset_items_produces_generic_items() -> None:
    items = to_dataset_items(load_golden(GOLDEN))
    first = items[0]
    assert first["id"] == "golden-001"
    assert first["input"] == {"query": "memory leak in the payment processor"}
    assert first["expected_output"]["relevant_ids"][0] == "push:checkout-service-fix"
    assert first["expected_output"]["graded_relevance"]["error:payment-processor-oom"] == 2
    assert first["metadata"] == {
        "query_type": "technical",
        "category": "technical",
        "complexity": "medium",
        "source": "manual",
    }
    null_item = next(i for i in items if i["metadata"]["query_type"] == "null")
    assert null_item["expected_output"] == {"relevant_ids": [], "graded_relevance": {}}


def test_validation_error_names_file_case_and_field(tmp_path: Path) -> None:
    raw = json.loads(GOLDEN.read_text())
    raw["cases"][4]["queryType"] = "vibes"
    bad = tmp_path / "golden-bad.json"
    bad.write_text(json.dumps(raw))
    with pytest.raises(GoldenFileError) as info:
        load_golden(bad)
    message = str(info.value)
    assert "golden-bad.json" in message
    assert "golden-005" in message
    assert "queryType" in message


def test_grades_outside_0_to_3_and_null_with_expectations_are_rejected(tmp_path: Path) -> None:
    raw = json.loads(GOLDEN.read_text())
    raw["cases"][0]["gradedRelevance"]["push:checkout-service-fix"] = 4
    bad = tmp_path / "g.json"
    bad.write_text(json.dumps(raw))
    with pytest.raises(GoldenFileError, match=r"outside 0\.\.3"):
        load_golden(bad)
    raw = json.loads(GOLDEN.read_text())
    raw["cases"][-1]["expectedObservationIds"] = ["push:checkout-service-fix"]
    bad.write_text(json.dumps(raw))
    with pytest.raises(GoldenFileError, match="null"):
        load_golden(bad)


def test_missing_ids_are_reported_per_case() -> None:
    golden = load_golden(GOLDEN)
    ids = load_corpus(DEFAULT_CORPUS).ids - {"pr:redis-outage-postmortem"}
    problems = missing_ids(golden, ids)
    assert problems and all(v == ["pr:redis-outage-postmortem"] for v in problems.values())
    with pytest.raises(GoldenFileError, match="pr:redis-outage-postmortem"):
        check_ids_exist(golden, ids)


def test_missing_file_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(GoldenFileError, match="no such golden dataset file"):
        load_golden(tmp_path / "nope.json")


RAG_GOLDEN = DEFAULT_CORPUS.parent / "rag-golden-v1.json"


def test_rag_golden_v1_cases_have_answers_citations_and_entities_in_the_corpus() -> None:
    golden = load_golden(RAG_GOLDEN)
    assert len(golden.cases) >= 20
    check_ids_exist(golden, load_corpus(DEFAULT_CORPUS).ids)
    for case in golden.cases:
        assert case.expected_answer, case.id
        assert set(case.required_citations or []) <= set(case.expected_observation_ids), case.id
        if case.query_type == "null":
            assert case.required_citations == [] and case.required_entities == []
        else:
            assert case.required_citations and case.required_entities, case.id
            answer = case.expected_answer.lower()
            assert all(e.lower() in answer for e in case.required_entities), case.id


def test_rag_golden_becomes_a_rag_dataset_with_answer_expectations() -> None:
    raw = json.loads(RAG_GOLDEN.read_text())
    dataset = golden_file_to_dataset(RAG_GOLDEN, raw)
    assert dataset["kind"] == "rag"
    first = dataset["items"][0]["expected_output"]
    assert set(first) == {
        "relevant_ids",
        "graded_relevance",
        "expected_answer",
        "required_citations",
        "required_entities",
    }
    assert golden_file_to_dataset(GOLDEN, json.loads(GOLDEN.read_text()))["kind"] == "retrieval"


def test_required_citations_outside_the_corpus_are_reported() -> None:
    golden = load_golden(RAG_GOLDEN)
    case = golden.cases[0].model_copy(update={"required_citations": ["pr:nope"]})
    assert "pr:nope" in missing_ids(golden.model_copy(update={"cases": [case]}), ["x"])[case.id]


def test_a_misspelt_case_field_names_the_case_from_1_and_the_closest_field(tmp_path: Path) -> None:
    raw = json.loads(GOLDEN.read_text())
    raw["cases"][4]["expectedAnwser"] = raw["cases"][4].pop("notes")
    bad = tmp_path / "golden-typo.json"
    bad.write_text(json.dumps(raw))
    with pytest.raises(GoldenFileError) as info:
        load_golden(bad)
    assert str(info.value).splitlines()[1] == (
        "  - case 5 (id 'golden-005'): unknown field 'expectedAnwser'; did you mean 'expectedAnswer'? "
        "Put extra data under 'metadata'."
    )
