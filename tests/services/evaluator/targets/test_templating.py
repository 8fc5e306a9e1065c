from __future__ import annotations

import pytest

from services.evaluator.errors import TargetConfigError, TargetRejected
from services.evaluator.targets.templating import PathNotFound, fill_template, lookup, map_output

pytestmark = pytest.mark.unit

ITEM = {"query": "reset password", "k": 5, "filters": {"source": "docs"}, "tags": ["a", "b"]}


def test_placeholders_are_filled_inside_strings_and_nested_structures() -> None:
    template = {
        "q": "{input.query}",
        "prompt": "Find '{input.query}' in {input.filters.source}",
        "opts": [{"top_k": "{input.k}"}, "literal", 3, None],
    }
    assert fill_template(template, ITEM) == {
        "q": "reset password",
        "prompt": "Find 'reset password' in docs",
        "opts": [{"top_k": 5}, "literal", 3, None],
    }


def test_a_lone_placeholder_keeps_the_json_type() -> None:
    assert fill_template({"tags": "{input.tags}", "k": "{input.k}"}, ITEM) == {"tags": ["a", "b"], "k": 5}


def test_unknown_placeholder_names_the_key_and_the_input_keys() -> None:
    with pytest.raises(TargetConfigError, match=r"\{input.missing\}.*input keys: \['filters', 'k'"):
        fill_template({"q": "{input.missing}"}, ITEM)


def test_text_that_only_looks_like_a_placeholder_is_left_alone() -> None:
    assert fill_template("{output.x} {input} {query}", ITEM) == "{output.x} {input} {query}"


def test_lookup_walks_dicts_and_list_indexes() -> None:
    doc = {"data": {"hits": [{"id": "x"}, {"id": "y"}]}}
    assert lookup(doc, "data.hits.1.id") == "y"
    assert lookup(doc, "data.hits.-1.id") == "y"
    with pytest.raises(PathNotFound, match=r"out of range"):
        lookup(doc, "data.hits.5.id")
    with pytest.raises(PathNotFound, match=r"'nope'"):
        lookup(doc, "data.nope")


def test_output_mapping_picks_fields_and_empty_mapping_keeps_the_body() -> None:
    body = {"data": {"answer": "42", "hits": [{"id": "d1"}]}, "took": 3}
    assert map_output(body, {"answer": "data.answer", "first": "data.hits.0.id"}) == {
        "answer": "42",
        "first": "d1",
    }
    assert map_output(body, {}) == body
    assert map_output([1, 2], {}) == {"body": [1, 2]}


def test_output_mapping_to_a_missing_path_is_an_error_result() -> None:
    with pytest.raises(TargetRejected, match=r"'answer' -> 'data.answer' not found"):
        map_output({"data": {}}, {"answer": "data.answer"})
