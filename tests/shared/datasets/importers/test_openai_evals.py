"""OpenAI Evals files → datasets: the registry's own test-match example, samples, the API form."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from shared.datasets.files import DatasetFileError
from shared.datasets.importers import ImportFileError, import_openai_evals

pytestmark = pytest.mark.unit

REGISTRY = Path(__file__).parent / "fixtures" / "openai_evals" / "registry"
SAMPLES = REGISTRY / "data" / "test_match" / "samples.jsonl"


def only_check(item: Any) -> dict[str, Any]:
    [check] = item.expected_output["checks"]
    return dict(check)


def test_the_registry_example_is_read_with_its_eval_class() -> None:
    imported = import_openai_evals(REGISTRY / "evals" / "test-basic.yaml", eval_name="test-match")
    dataset = imported.dataset
    assert dataset.name == "test-match" and [i.id for i in dataset.items] == [
        "sample-0001",
        "sample-0002",
        "sample-0003",
    ]
    first = dataset.items[0]
    assert first.input["messages"][1] == {"role": "user", "content": "Once upon a "}
    check = only_check(first)
    assert check["evaluator"] == "regex_match" and check["metric"] == "match"
    pattern = re.compile(check["args"]["pattern"])
    assert pattern.search(" time and again") and not pattern.search("once upon a time")
    assert imported.unsupported == []


def test_match_includes_and_fuzzy_match_keep_their_meaning(tmp_path: Path) -> None:
    path = tmp_path / "qa.jsonl"
    path.write_text(json.dumps({"input": "Capital of France?", "ideal": ["Paris", "paris"]}) + "\n")
    includes = only_check(import_openai_evals(path, eval_class="includes").dataset.items[0])
    assert includes == {
        "evaluator": "contains",
        "args": {"case_sensitive": True},
        "values": ["Paris", "paris"],
        "metric": "includes",
        "label": "Includes",
    }
    fuzzy = import_openai_evals(path, eval_class="fuzzy_match").dataset
    assert only_check(fuzzy.items[0])["evaluator"] == "fuzzy_match"
    assert fuzzy.items[0].input == {"prompt": "Capital of France?"} and fuzzy.name == "qa"


def test_the_evals_api_form_maps_its_testing_criteria(tmp_path: Path) -> None:
    data = tmp_path / "export.jsonl"
    rows = [{"item": {"question": "2+2?", "answer": "4"}}, {"item": {"question": "3+3?", "answer": "6"}}]
    data.write_text("".join(json.dumps(r) + "\n" for r in rows))
    criteria = tmp_path / "eval.json"
    output = "{{sample.output_text}}"
    criteria.write_text(
        json.dumps(
            {
                "testing_criteria": [
                    {"type": "string_check", "name": "Exact", "input": output,
                     "reference": "{{item.answer}}", "operation": "eq"},
                    {"type": "string_check", "name": "no sorry", "input": output,
                     "reference": "sorry", "operation": "ilike"},
                    {"type": "text_similarity", "name": "close", "input": output,
                     "reference": "{{item.answer}}", "evaluation_metric": "fuzzy_match",
                     "pass_threshold": 0.7},
                    {"type": "label_model", "name": "tone", "input": [], "labels": ["ok"]},
                    {"type": "text_similarity", "name": "bleu", "input": output,
                     "reference": "x", "evaluation_metric": "bleu"},
                ]
            }
        )
    )  # fmt: skip
    imported = import_openai_evals(data, criteria=criteria)
    second = imported.dataset.items[1]
    assert second.input == {"question": "3+3?", "answer": "6"}
    checks = second.expected_output["checks"]
    assert [(c["evaluator"], c["metric"]) for c in checks] == [
        ("exact_match", "exact"),
        ("contains", "no_sorry"),
        ("string_similarity", "close"),
    ]
    assert checks[0]["args"] == {"expected": "6", "strip": False} and checks[2]["threshold"] == 0.7
    assert [(u.kind, u.where) for u in imported.unsupported] == [
        ("label_model", "criterion #4 (tone)"),
        ("text_similarity", "criterion #5 (bleu)"),
    ]


def test_the_api_form_without_criteria_is_listed_not_silently_unchecked(tmp_path: Path) -> None:
    data = tmp_path / "export.jsonl"
    data.write_text('{"item": {"q": 1}}\n')
    [missing] = import_openai_evals(data).unsupported
    assert missing.kind == "testing_criteria" and "--criteria" in missing.reason


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (None, "no such file"),
        ("version https://git-lfs.github.com/spec/v1\noid sha256:f2\n", "Git LFS"),
        ('{"input": "x"\n', "line 1 is not valid JSON"),
        ('{"prompt": "x"}\n', "neither `input`"),
        ('{"input": "x"}\n', "no `ideal`"),
        ('{"input": {"a": 1}, "ideal": "x"}\n', "chat messages"),
        ('{"input": "x", "ideal": []}\n', "non-empty"),
        ("\n", "empty"),
    ],
)
def test_bad_input_says_what_is_wrong(tmp_path: Path, text: str | None, message: str) -> None:
    path = tmp_path / "samples.jsonl"
    if text is not None:
        path.write_text(text)
    with pytest.raises(DatasetFileError, match=message):
        import_openai_evals(path)


def test_a_registry_needs_one_basic_eval(tmp_path: Path) -> None:
    with pytest.raises(ImportFileError, match="name the eval to import with --eval"):
        import_openai_evals(REGISTRY / "evals" / "test-basic.yaml")
    graded = tmp_path / "graded.yaml"
    graded.write_text(
        "joke:\n  id: joke.dev.v0\n"
        "joke.dev.v0:\n  class: evals.elsuite.modelgraded.classify:ModelBasedClassify\n"
    )
    with pytest.raises(ImportFileError, match="only the basic Match, Includes and FuzzyMatch"):
        import_openai_evals(graded, eval_name="joke")
    with pytest.raises(ImportFileError, match="not found under registry/data"):
        import_openai_evals(REGISTRY / "evals" / "test-basic.yaml", eval_name="test-includes")
