"""promptfoo configs → datasets, on promptfoo's own example configs and on the forms its docs allow."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from shared.datasets.files import DatasetFileError, load_dataset_file
from shared.datasets.importers import ImportFileError, import_promptfoo
from shared.datasets.importers.promptfoo import assertion_from_string, case_from_csv_row

pytestmark = pytest.mark.unit

FIXTURES = Path(__file__).parent / "fixtures" / "promptfoo"


def checks_of(item: Any) -> list[dict[str, Any]]:
    return [{k: v for k, v in c.items() if k != "label"} for c in item.expected_output["checks"]]


def write(folder: Path, text: str, name: str = "promptfooconfig.yaml") -> Path:
    path = folder / name
    path.write_text(text)
    return path


def test_the_getting_started_example() -> None:
    imported = import_promptfoo(FIXTURES / "getting-started" / "promptfooconfig.yaml")
    dataset = imported.dataset
    assert dataset.name == "getting-started" and dataset.description == "Getting started"
    assert [i.id for i in dataset.items] == ["test-001", "test-002"]
    assert dataset.items[0].input == {"language": "French", "input": "Hello world"}
    assert checks_of(dataset.items[0]) == [
        {
            "evaluator": "contains",
            "args": {"expected": "Bonjour le monde", "case_sensitive": True},
            "metric": "contains",
        }
    ]
    assert checks_of(dataset.items[1])[0]["args"] == {
        "expected": "Dónde está la biblioteca",
        "case_sensitive": False,
    }
    assert imported.unsupported == [] and "prompts and providers" in imported.warnings[0]


def test_the_simple_csv_example_reads_tests_from_a_csv_file() -> None:
    dataset = import_promptfoo(FIXTURES / "simple-csv" / "promptfooconfig.yaml").dataset
    assert dataset.name == "a-translator-built-with-llm" and len(dataset.items) == 4
    assert set(dataset.items[0].input) == {"language", "body", "style_config"}
    assert [checks_of(i)[0]["args"]["expected"] for i in dataset.items] == ["bonjour", "faim", "Ahoy", "grub"]


def test_the_configuration_guide_example_refuses_javascript_and_keeps_the_rest() -> None:
    imported = import_promptfoo(FIXTURES / "configuration-guide" / "promptfooconfig.yaml")
    [refused] = imported.unsupported
    assert refused.where == "test 1 assert #2" and refused.kind == "javascript"
    first, second = imported.dataset.items
    assert [c["metric"] for c in checks_of(first)] == ["llm_rubric", "contains_json"]
    assert checks_of(first)[0]["args"]["criteria"] == "does not describe self as an AI, model, or chatbot"
    assert checks_of(second)[1] == {
        "evaluator": "string_similarity",
        "values": ["was geht"],
        "threshold": 0.6,
        "metric": "similar",
    }
    assert imported.uses_judge and any("embeddings" in w for w in imported.warnings)


def test_default_test_merges_as_promptfoo_does(tmp_path: Path) -> None:
    config = write(
        tmp_path,
        """
defaultTest:
  vars: {audience: developer, topic: default}
  metadata: {suite: docs}
  assert:
    - type: icontains
      value: '{{topic}}'
tests:
  - description: API setup!
    vars: {topic: API}
    metadata: {owner: ann}
    assert: [{type: contains-json}]
  - description: API setup!
    options: {disableDefaultAsserts: true}
    vars: {topic: [one, two]}
""",
    )
    items = import_promptfoo(config, "docs").dataset.items
    assert [i.id for i in items] == ["api-setup", "api-setup-1", "api-setup-2"]
    assert items[0].input == {"audience": "developer", "topic": "API"}
    assert items[0].metadata == {
        "source": "promptfoo",
        "description": "API setup!",
        "suite": "docs",
        "owner": "ann",
    }
    assert [c["args"] for c in checks_of(items[0])] == [
        {"expected": "API", "case_sensitive": False},
        {"embedded": True},
    ]
    assert [i.input["topic"] for i in items[1:]] == ["one", "two"] and checks_of(items[1]) == []


def test_tests_from_files_and_vars_from_files(tmp_path: Path) -> None:
    (tmp_path / "cases").mkdir()
    write(tmp_path / "cases", "- vars: {q: first}\n  assert: [{type: equals, value: one}]\n", "a.yaml")
    write(tmp_path / "cases", '{"vars": {"q": "second"}, "assert": [{"type": "is-json"}]}\n', "b.jsonl")
    write(tmp_path, "a long context\n", "context.txt")
    config = write(
        tmp_path,
        "tests:\n  - file://cases/*\n  - vars: {q: third, context: file://context.txt}\n",
    )
    items = import_promptfoo(config).dataset.items
    assert [i.input["q"] for i in items] == ["first", "second", "third"]
    assert items[2].input["context"] == "a long context\n"
    assert checks_of(items[0]) == [
        {"evaluator": "exact_match", "args": {"expected": "one", "strip": False}, "metric": "equals"}
    ]


def test_every_mapped_assertion_type(tmp_path: Path) -> None:
    config = write(
        tmp_path,
        """
tests:
  - vars: {city: Paris}
    assert:
      - {type: equals, value: {a: 1}}
      - {type: not-contains, value: 'London'}
      - {type: icontains-any, value: 'paris, lyon'}
      - {type: contains-all, value: [Par, is]}
      - {type: starts-with, value: 'The {{city}}'}
      - {type: regex, value: '^\\d+$'}
      - {type: is-json, value: {type: object}}
      - {type: similar, value: [hi, hello]}
      - {type: llm-rubric, value: 'mentions {{ city }}', threshold: 0.8, metric: Mentions City}
""",
    )
    checks = checks_of(import_promptfoo(config).dataset.items[0])
    assert checks == [
        {"evaluator": "json_schema", "args": {"schema": {"const": {"a": 1}}}, "metric": "equals"},
        {
            "evaluator": "contains",
            "args": {"expected": "London", "case_sensitive": True},
            "negate": True,
            "metric": "not_contains",
        },
        {
            "evaluator": "contains",
            "args": {"case_sensitive": False},
            "values": ["paris", "lyon"],
            "metric": "icontains_any",
        },
        {
            "evaluator": "contains",
            "args": {"case_sensitive": True},
            "values": ["Par", "is"],
            "match": "all",
            "metric": "contains_all",
        },
        {"evaluator": "regex_match", "args": {"pattern": r"\AThe\ Paris"}, "metric": "starts_with"},
        {"evaluator": "regex_match", "args": {"pattern": r"^\d+$"}, "metric": "regex"},
        {"evaluator": "json_schema", "args": {"schema": {"type": "object"}}, "metric": "is_json"},
        {"evaluator": "string_similarity", "values": ["hi", "hello"], "threshold": 0.75, "metric": "similar"},
        {
            "evaluator": "llm_rubric",
            "args": {"criteria": "mentions Paris", "scale": [0, 1]},
            "threshold": 0.8,
            "metric": "Mentions_City",
        },
    ]


def test_every_unsupported_assertion_is_listed_with_its_test(tmp_path: Path) -> None:
    config = write(
        tmp_path,
        """
assertionTemplates:
  upper: {type: javascript, value: 'output[0] === output[0].toUpperCase()'}
tests:
  - description: first
    assert:
      - {type: python, value: 'len(output) < 10'}
      - $ref: '#/assertionTemplates/upper'
      - {type: regex, value: '(?<year>\\d{4})'}
      - {type: contains, value: '{{ missing }}'}
      - {type: icontains, value: '{% if x %}a{% endif %}'}
      - {type: factuality, value: 'Paris is the capital'}
      - {type: contains, value: x, transform: 'output.trim()'}
  - threshold: 0.5
    options: {transform: 'output.toUpperCase()'}
    assert: [{type: contains, value: ok}]
""",
    )
    imported = import_promptfoo(config)
    described = [u.describe() for u in imported.unsupported]
    assert [(u.where, u.kind) for u in imported.unsupported] == [
        ("test 1 (first) assert #1", "python"),
        ("test 1 (first) assert #2", "javascript"),
        ("test 1 (first) assert #3", "regex"),
        ("test 1 (first) assert #4", "contains"),
        ("test 1 (first) assert #5", "icontains"),
        ("test 1 (first) assert #6", "factuality"),
        ("test 1 (first) assert #7", "contains"),
        ("test 2", "options.transform"),
        ("test 2", "threshold"),
    ]
    assert "Python cannot compile" in described[2] and "missing" in described[3]
    assert "Nunjucks" in described[4] and "no Yardstick evaluator" in described[5]
    assert checks_of(imported.dataset.items[1])[0]["args"]["expected"] == "ok"


def test_csv_short_forms_follow_promptfoo() -> None:
    assert assertion_from_string("icontains:bonjour") == {"type": "icontains", "value": "bonjour"}
    assert assertion_from_string("not-contains-any:a, b") == {"type": "not-contains-any", "value": ["a", "b"]}
    assert assertion_from_string("similar(0.9):hello") == {
        "type": "similar",
        "value": "hello",
        "threshold": 0.9,
    }
    assert assertion_from_string("similar:hello")["threshold"] == 0.8
    assert assertion_from_string("is-json") == {"type": "is-json", "value": None}
    assert assertion_from_string("grade:is polite") == {"type": "llm-rubric", "value": "is polite"}
    assert assertion_from_string("fn:output.length < 5")["type"] == "javascript"
    assert assertion_from_string("Paris") == {"type": "equals", "value": "Paris"}
    assert assertion_from_string("containsx") == {"type": "equals", "value": "containsx"}
    row = {"q": "hi", "__expected1": "contains:a", "__expected2": "similar:b", "__description": "d",
           "__metadata:tags[]": "x, y", "__config:__expected2:threshold": "0.5", "__metric": "m"}  # fmt: skip
    test = case_from_csv_row(row)
    assert test["vars"] == {"q": "hi"} and test["description"] == "d"
    assert test["metadata"] == {"tags": ["x", "y"]}
    assert test["assert"][1] == {"type": "similar", "value": "b", "threshold": 0.5, "metric": "m"}


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (None, "no such file"),
        ("tests: [\n", "not valid YAML"),
        ("- just a list\n", "top level must be a mapping"),
        ("prompts: [hi]\n", "no tests"),
        ("tests: file://nowhere/*.yaml\n", "names no file"),
        ("tests: file://cases.js\n", "names no file"),
        ("tests: [plain string]\n", "not a mapping"),
        ("tests: [{vars: [a, b]}]\n", "vars must be a mapping"),
        ("tests: [{assert: {type: equals}}]\n", "assert must be a list"),
        ("tests: [{metadata: 3}]\n", "metadata must be a mapping"),
        ("defaultTest: {vars: 3}\ntests: [{}]\n", "vars must be a mapping"),
    ],
)
def test_bad_input_says_what_is_wrong(tmp_path: Path, text: str | None, message: str) -> None:
    path = tmp_path / "promptfooconfig.yaml"
    if text is not None:
        path.write_text(text)
    with pytest.raises(DatasetFileError, match=message):
        import_promptfoo(path)


def test_an_empty_tests_file_is_named(tmp_path: Path) -> None:
    write(tmp_path, "", "cases.csv")
    with pytest.raises(DatasetFileError, match=r"cases\.csv: the file is empty"):
        import_promptfoo(write(tmp_path, "tests: file://cases.csv\n"))
    write(tmp_path, "language,__expected\n", "cases.csv")
    with pytest.raises(ImportFileError, match="no test cases found"):
        import_promptfoo(write(tmp_path, "tests: file://cases.csv\n"))


def test_script_tests_and_vars_are_refused_as_files(tmp_path: Path) -> None:
    write(tmp_path, "module.exports = []", "cases.js")
    with pytest.raises(ImportFileError, match="export them to YAML"):
        import_promptfoo(write(tmp_path, "tests: file://cases.js\n"))
    write(tmp_path, "def get_var(): ...", "ctx.py")
    with pytest.raises(ImportFileError, match="computed by a script"):
        import_promptfoo(write(tmp_path, "tests: [{vars: {c: file://ctx.py}}]\n"))


def test_the_same_config_imports_to_the_same_items_and_round_trips(tmp_path: Path) -> None:
    path = FIXTURES / "configuration-guide" / "promptfooconfig.yaml"
    first, second = import_promptfoo(path).dataset, import_promptfoo(path).dataset
    assert first == second
    out = tmp_path / "dataset.json"
    out.write_text(first.model_dump_json())
    assert load_dataset_file(out).items == first.items


def test_a_reference_to_a_folder_names_no_file(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    with pytest.raises(ImportFileError, match="file://sub names no file"):
        import_promptfoo(write(tmp_path, "tests: [{vars: file://sub}]\n"))


def test_a_misspelt_test_key_is_named_in_a_warning_with_the_closest_key(tmp_path: Path) -> None:
    config = write(
        tmp_path,
        "defaultTest: {metdata: {team: a}}\n"
        "tests:\n  - vars: {q: hi}\n    asert: [{type: equals, value: hello}]\n",
    )
    warnings = import_promptfoo(config).warnings
    assert (
        "defaultTest: unknown key 'metdata'; did you mean 'metadata'? (ignored, as promptfoo does)"
        in warnings
    )
    assert "test 1: unknown key 'asert'; did you mean 'assert'? (ignored, as promptfoo does)" in warnings
    assert warnings[0].startswith("prompts and providers are not imported")
