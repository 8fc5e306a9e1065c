"""A promptfoo config (``promptfooconfig.yaml``) → a Yardstick dataset.

What is read, as promptfoo reads it:
- ``tests``: an inline list, or ``file://`` references (one string or list entries; globs allowed)
  to YAML / JSON / JSONL / CSV files relative to the config. CSV columns are vars except the
  reserved ``__expected[N]`` (assertions in promptfoo's short form, e.g. ``icontains:bonjour``),
  ``__description``, ``__metric``, ``__threshold``, ``__metadata:KEY`` and ``__config:…:threshold``;
- ``defaultTest`` (inline or ``file://``): its vars under each test's, its assertions before each
  test's (unless the test sets ``options.disableDefaultAsserts``), its metadata under each test's;
- ``vars``: an item's input; a list of strings runs every combination (one item each);
  ``file://`` var values are read from text, YAML or JSON files; a script var is refused;
- ``assert``: see :mod:`.promptfoo_assertions`.

A test key promptfoo does not define (``asert:``) is named in a warning with the closest known key:
promptfoo ignores it too, so nothing it meant is imported. ``prompts`` and ``providers`` are not
imported: Yardstick calls your application (a target) with the
vars; the warnings say so. A test-level ``threshold`` (weighted scoring), ``options.transform`` and
``assertScoringFunction`` are refused like an unsupported assertion.
"""

from __future__ import annotations

import csv
import glob
import io
import itertools
import json
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import yaml

from shared.contracts.item_checks import ItemCheck
from shared.datasets.files import DatasetFileError, load_yaml, read_text
from shared.datasets.importers.imported import (
    Imported,
    ImportedCase,
    ImportFileError,
    Unsupported,
    build_dataset,
    slug,
)
from shared.datasets.importers.promptfoo_assertions import SIMILARITY_WARNING, map_assertion
from yardstick.api.validation_messages import did_you_mean_each

SCRIPT_SUFFIXES = (".js", ".cjs", ".mjs", ".ts", ".py")
ASSERTION_TYPES = (
    "answer-relevance",
    "bleu",
    "classifier",
    "contains-all",
    "contains-any",
    "contains-html",
    "contains-json",
    "contains-sql",
    "contains-xml",
    "contains",
    "context-faithfulness",
    "context-recall",
    "context-relevance",
    "cost",
    "equals",
    "factuality",
    "finish-reason",
    "g-eval",
    "gleu",
    "guardrails",
    "icontains-all",
    "icontains-any",
    "icontains",
    "is-html",
    "is-json",
    "is-refusal",
    "is-sql",
    "is-valid-function-call",
    "is-valid-openai-function-call",
    "is-valid-openai-tools-call",
    "is-xml",
    "javascript",
    "latency",
    "levenshtein",
    "llm-rubric",
    "meteor",
    "model-graded-closedqa",
    "model-graded-factuality",
    "moderation",
    "perplexity-score",
    "perplexity",
    "pi",
    "python",
    "regex",
    "rouge-n",
    "ruby",
    "similar",
    "starts-with",
    "webhook",
    "word-count",
)
"""promptfoo's assertion types, as the CSV short form recognises them (``TYPE[(threshold)][:value]``)."""
ARRAY_TYPES = {"contains-all", "contains-any", "icontains-all", "icontains-any"}
RAW_TYPES = {"contains-json", "is-json"}
THRESHOLD_TYPES = {
    "answer-relevance", "classifier", "context-faithfulness", "context-recall", "context-relevance",
    "cost", "latency", "levenshtein", "perplexity-score", "perplexity", "rouge-n", "similar", "starts-with",
}  # fmt: skip
TEST_KEYS = (
    "assert", "assertScoringFunction", "description", "metadata", "options", "prompts", "provider",
    "providerOutput", "providers", "threshold", "vars",
)  # fmt: skip
"""The keys of a promptfoo test case (and ``defaultTest``)."""
CSV_SIMILAR_THRESHOLD = 0.8
"""promptfoo's CSV short form gives ``similar`` this threshold when it names none."""


def _structured(path: Path) -> Any:
    """A YAML / JSON / JSONL file's content (JSONL: the list of its lines)."""
    text = read_text(path)
    try:
        if path.suffix == ".jsonl":
            return [json.loads(line) for line in text.splitlines() if line.strip()]
        return load_yaml(text)
    except (json.JSONDecodeError, yaml.YAMLError) as exc:
        raise ImportFileError(
            f"{path}: not valid {path.suffix.lstrip('.').upper() or 'YAML'}: {exc}"
        ) from exc


def assertion_from_string(expected: str) -> dict[str, Any]:
    """promptfoo's CSV short form (``icontains:bonjour``, ``similar(0.9):hi``, ``grade:…``) as an
    assertion."""
    if expected.startswith(("javascript:", "fn:", "eval:")) or (
        expected.startswith("file://") and expected.endswith((".js", ".cjs", ".mjs", ".ts"))
    ):
        return {"type": "javascript", "value": expected.split(":", 1)[1].strip()}
    for prefix in ("grade:", "llm-rubric:"):
        if expected.startswith(prefix):
            return {"type": "llm-rubric", "value": expected[len(prefix) :]}
    if expected.startswith("python:") or (expected.startswith("file://") and ".py" in expected):
        return {"type": "python", "value": expected.split(":", 1)[1].strip()}
    for kind in ASSERTION_TYPES:
        for negated in ("", "not-"):
            head = negated + kind
            if not expected.startswith(head):
                continue
            rest = expected[len(head) :]
            threshold: float | None = None
            if rest.startswith("("):
                number, sep, rest = rest[1:].partition(")")
                try:
                    threshold = float(number)
                except ValueError:
                    continue
                if not sep:
                    continue
            if rest and not rest.startswith(":"):
                continue
            value: str | None = rest[1:] if rest else None
            assertion: dict[str, Any] = {"type": head}
            if kind in ARRAY_TYPES:
                assertion["value"] = [v.strip() for v in value.split(",")] if value else value
            elif kind in RAW_TYPES:
                assertion["value"] = value
            else:
                assertion["value"] = value.strip() if value is not None else None
            if kind in THRESHOLD_TYPES:
                default = CSV_SIMILAR_THRESHOLD if kind == "similar" else 0.75
                assertion["threshold"] = threshold if threshold is not None else default
            return assertion
    return {"type": "equals", "value": expected}


def case_from_csv_row(row: Mapping[str, str]) -> dict[str, Any]:
    """One CSV row as a promptfoo test (see the module docstring for the reserved columns)."""
    test: dict[str, Any] = {"vars": {}, "assert": [], "metadata": {}}
    configs: dict[int, float] = {}
    metric: str | None = None
    for raw_key, value in row.items():
        key, value = (raw_key or "").strip(), value or ""
        if key.startswith("__expected"):
            if value.strip():
                test["assert"].append(assertion_from_string(value.strip()))
        elif key == "__description":
            test["description"] = value
        elif key == "__metric":
            metric = value
        elif key == "__threshold":
            test["threshold"] = float(value) if value.strip() else None
        elif key.startswith("__metadata:"):
            name = key.removeprefix("__metadata:")
            if name.endswith("[]") and value.strip():
                test["metadata"][name[:-2]] = [v.strip() for v in value.split(",")]
            elif value.strip():
                test["metadata"][name] = value
        elif key.startswith("__config:"):
            target, _, setting = key.removeprefix("__config:").partition(":")
            index = 0 if target == "__expected" else int(target.removeprefix("__expected") or 1) - 1
            if setting == "threshold" and value.strip():
                configs[index] = float(value)
        elif key in ("__prefix", "__suffix", "__providerOutput", "__metadata"):
            continue
        else:
            test["vars"][key] = value
    for index, assertion in enumerate(test["assert"]):
        if metric:
            assertion["metric"] = metric
        if index in configs:
            assertion["threshold"] = configs[index]
    if test.get("threshold") is None:
        test.pop("threshold", None)
    return test


def _csv_tests(path: Path) -> list[dict[str, Any]]:
    text = read_text(path)
    try:
        return [case_from_csv_row(row) for row in csv.DictReader(io.StringIO(text))]
    except (csv.Error, ValueError) as exc:
        raise ImportFileError(f"{path}: not a promptfoo tests CSV: {exc}") from exc


class _Config:
    """The config file, its folder, and the files its ``file://`` references name."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.base = path.parent
        try:
            raw = load_yaml(read_text(path))
        except yaml.YAMLError as exc:
            raise ImportFileError(f"{path}: not valid YAML: {exc}") from exc
        if not isinstance(raw, dict):
            raise ImportFileError(
                f"{path}: not a promptfoo config: the top level must be a mapping with `tests`"
            )
        self.raw: dict[str, Any] = raw

    def files(self, reference: str) -> list[Path]:
        """The files a ``file://`` reference names (a glob may name several), relative to the config."""
        pattern = reference.removeprefix("file://")
        matches = glob.glob(str(self.base / pattern), recursive=True)
        found = sorted(path for path in map(Path, matches) if path.is_file())
        if not found:
            raise ImportFileError(
                f"{self.path}: {reference} names no file (paths are relative to the config)"
            )
        return found

    def tests_from(self, reference: str) -> Iterator[Any]:
        for path in self.files(reference):
            if path.suffix == ".csv":
                yield from _csv_tests(path)
            elif path.suffix in (".yaml", ".yml", ".json", ".jsonl"):
                content = _structured(path)
                yield from content if isinstance(content, list) else [content]
            else:
                raise ImportFileError(
                    f"{path}: tests in {path.suffix or 'this'} files are not read: export them to YAML, "
                    "JSON, JSONL or CSV"
                )

    def tests(self) -> list[Any]:
        declared = self.raw.get("tests")
        if isinstance(declared, str):
            declared = [declared]
        if not isinstance(declared, list) or not declared:
            raise ImportFileError(
                f"{self.path}: no tests: a promptfoo config lists its cases under `tests:` (inline or file://)"
            )
        tests: list[Any] = []
        for entry in declared:
            if isinstance(entry, str) and entry.startswith("file://"):
                tests.extend(self.tests_from(entry))
            else:
                tests.append(entry)
        return tests

    def default_test(self) -> dict[str, Any]:
        default = self.raw.get("defaultTest") or {}
        if isinstance(default, str) and default.startswith("file://"):
            default = _structured(self.files(default)[0])
        if not isinstance(default, dict):
            raise ImportFileError(
                f"{self.path}: defaultTest must be a mapping (or a file:// reference to one)"
            )
        return default

    def var_value(self, value: Any) -> Any:
        """A var's value, read from its file when it is a ``file://`` reference."""
        if not (isinstance(value, str) and value.startswith("file://")):
            return value
        path = self.files(value)[0]
        if path.suffix in SCRIPT_SUFFIXES:
            raise ImportFileError(
                f"{value}: a var computed by a script cannot be imported: write its value out"
            )
        if path.suffix in (".yaml", ".yml", ".json", ".jsonl"):
            return _structured(path)
        return read_text(path)


def _combinations(variables: Mapping[str, Any]) -> list[dict[str, Any]]:
    """promptfoo's var combinations: a list whose first element is a string runs once per element."""
    choices = [
        [(key, v) for v in value]
        if isinstance(value, list) and value and isinstance(value[0], str)
        else [(key, value)]
        for key, value in variables.items()
    ]
    return [dict(combo) for combo in itertools.product(*choices)]


def _test_problems(test: Mapping[str, Any], where: str) -> list[Unsupported]:
    problems = []
    options = test.get("options") or {}
    if isinstance(options, Mapping) and options.get("transform"):
        problems.append(Unsupported(where, "options.transform", "it runs JavaScript on the output first"))
    if test.get("threshold") is not None:
        problems.append(
            Unsupported(
                where, "threshold", "a weighted pass score over the assertions; Yardstick needs each to pass"
            )
        )
    if test.get("assertScoringFunction"):
        problems.append(Unsupported(where, "assertScoringFunction", "it scores with your own code"))
    return problems


def _unknown_keys(test: Mapping[str, Any], where: str) -> list[str]:
    """A warning naming each key of ``test`` promptfoo does not define, with the closest known one."""
    unknown = [str(key) for key in test if key not in TEST_KEYS]
    if not unknown:
        return []
    names = ", ".join(repr(key) for key in unknown)
    return [
        f"{where}: unknown key {names}{did_you_mean_each(unknown, TEST_KEYS)} (ignored, as promptfoo does)"
    ]


def _check_shape(test: Mapping[str, Any], where: str) -> None:
    """Refuse a test (or defaultTest) whose parts have the wrong shape, naming the part."""
    shapes = (("vars", (dict, str), "a mapping"), ("assert", list, "a list"), ("metadata", dict, "a mapping"))
    for key, kinds, what in shapes:
        if test.get(key) is not None and not isinstance(test[key], kinds):
            raise ImportFileError(f"{where}: {key} must be {what}, not {type(test[key]).__name__}")
    if test.get("options") is not None and not isinstance(test["options"], dict):
        raise ImportFileError(f"{where}: options must be a mapping")


def import_promptfoo(path: Path, name: str | None = None) -> Imported:
    """Read the promptfoo config at ``path`` into a dataset (see the module docstring)."""
    if not path.is_file():
        raise ImportFileError(f"{path}: no such file: give the path of your promptfooconfig.yaml")
    config = _Config(path)
    default = config.default_test()
    _check_shape(default, f"{path}: defaultTest")
    warnings = _unknown_keys(default, "defaultTest")
    if isinstance(default.get("vars"), str):
        raise ImportFileError(f"{path}: defaultTest: vars must be a mapping")
    templates = config.raw.get("assertionTemplates")
    templates = templates if isinstance(templates, dict) else {}
    warnings.insert(
        0,
        "prompts and providers are not imported: Yardstick calls your application (the run's --target) "
        "with each item's vars as its input",
    )
    unsupported: list[Unsupported] = []
    cases: list[ImportedCase] = []
    for number, test in enumerate(config.tests(), start=1):
        if not isinstance(test, Mapping):
            raise ImportFileError(f"{path}: test {number} is not a mapping (vars, assert, description…)")
        _check_shape(test, f"{path}: test {number}")
        description = str(test.get("description") or "").strip()
        where = f"test {number}" + (f" ({description[:60]})" if description else "")
        warnings += _unknown_keys(test, where)
        unsupported += _test_problems({**default, **test}, where)
        try:
            own_vars = test.get("vars") or {}
            if isinstance(own_vars, str):
                own_vars = _structured(config.files(own_vars)[0])
            variables = {**(default.get("vars") or {}), **own_vars}
            variables = {key: config.var_value(value) for key, value in variables.items()}
        except DatasetFileError as exc:
            raise ImportFileError(f"{where}: {exc}") from exc
        options = test.get("options") or {}
        inherited = (
            []
            if isinstance(options, Mapping) and options.get("disableDefaultAsserts")
            else default.get("assert") or []
        )
        assertions = [(f"defaultTest assert #{i}", a) for i, a in enumerate(inherited, start=1)] + [
            (f"{where} assert #{i}", a) for i, a in enumerate(test.get("assert") or [], start=1)
        ]
        metadata = {**(default.get("metadata") or {}), **(test.get("metadata") or {})}
        combos = _combinations(variables)
        for k, combo in enumerate(combos, start=1):
            checks: list[ItemCheck] = []
            for label, assertion in assertions:
                mapped = map_assertion(assertion, combo, label, config.base, _structured, templates)
                if isinstance(mapped, Unsupported):
                    if mapped not in unsupported:
                        unsupported.append(mapped)
                else:
                    checks.extend(mapped)
            base_id = slug(description) or f"test-{number:03d}"
            cases.append(
                ImportedCase(
                    base_id=f"{base_id}-{k}" if len(combos) > 1 else base_id,
                    input=combo,
                    checks=checks,
                    metadata={
                        "source": "promptfoo",
                        **({"description": description} if description else {}),
                        **metadata,
                    },
                )
            )
    if any(c.evaluator == "string_similarity" for case in cases for c in case.checks):
        warnings.append(SIMILARITY_WARNING)
    dataset_name = (
        name or slug(str(config.raw.get("description") or ""), 100) or path.parent.name or path.stem
    )
    dataset = build_dataset(dataset_name, str(config.raw.get("description") or ""), cases, str(path))
    return Imported(dataset, unsupported, warnings)
