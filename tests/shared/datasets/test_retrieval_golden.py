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
