"""OpenAI Evals files → a Yardstick dataset.

Three inputs:
- an **evals samples JSONL** (``{"input": [chat messages] | "prompt", "ideal": "…" | ["…", …]}``,
  as in openai/evals' registry data), checked as the basic eval class given
  (``match``: the output starts with an ideal answer, leading spaces aside; ``includes``: it
  contains one, case counting; ``fuzzy_match``: normalised, one contains the other);
- an **evals registry YAML** (``<eval>.dev.v0: {class: evals.elsuite.basic.match:Match, args:
  {samples_jsonl: …}}``): the class and the samples file are read from it (the samples relative to
  ``registry/data/``, as oaieval resolves them, or to the YAML's folder);
- an **Evals API data file** (JSONL of ``{"item": {…}}``, the ``/v1/evals`` data source), with the
  eval's ``testing_criteria`` (``criteria``: the eval object as JSON, or the list alone).
  ``string_check`` maps to ``exact_match`` (eq; ne negated) or ``contains`` (like; ilike without
  case); ``text_similarity`` with ``fuzzy_match`` to ``string_similarity`` at its ``pass_threshold``;
  a reference ``{{item.KEY}}`` is read from each item. Model graders (``label_model``,
  ``score_model``), ``python`` graders and other similarity metrics are refused with the reason.

An item's input is ``{"messages": […]}`` for a chat prompt, ``{"prompt": "…"}`` for a text one, the
item itself for the API form. Ids: ``sample-0001``… in file order.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

import yaml

from shared.contracts.item_checks import ItemCheck
from shared.datasets.files import load_yaml, read_text
from shared.datasets.importers.imported import (
    Imported,
    ImportedCase,
    ImportFileError,
    Unsupported,
    build_dataset,
    slug,
)

EvalClass = Literal["match", "includes", "fuzzy_match"]
CLASSES: dict[str, EvalClass] = {
    "evals.elsuite.basic.match:Match": "match",
    "evals.elsuite.basic.includes:Includes": "includes",
    "evals.elsuite.basic.fuzzy_match:FuzzyMatch": "fuzzy_match",
}
_ITEM_REF = re.compile(r"^\{\{\s*item\.([A-Za-z0-9_.]+)\s*\}\}$")
_OUTPUT_REFS = ("{{sample.output_text}}", "{{ sample.output_text }}")


def _jsonl(path: Path) -> list[dict[str, Any]]:
    text = read_text(path)
    if text.startswith("version https://git-lfs"):
        raise ImportFileError(f"{path}: a Git LFS pointer, not the samples: run `git lfs pull` first")
    rows = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            raise ImportFileError(f"{path}: line {number} is not valid JSON: {exc.msg}") from exc
        if not isinstance(row, dict):
            raise ImportFileError(f"{path}: line {number} is not a JSON object")
        rows.append(row)
    if not rows:
        raise ImportFileError(f"{path}: no samples: one JSON object a line")
    return rows


def _sample_checks(ideal: Any, eval_class: EvalClass, where: str) -> list[ItemCheck]:
    answers = ideal if isinstance(ideal, list) else [ideal]
    if not answers or not all(isinstance(a, str) and a for a in answers):
        raise ImportFileError(f"{where}: `ideal` must be a non-empty string or list of strings")
    if eval_class == "match":
        pattern = r"\A\s*(?:" + "|".join(re.escape(a) for a in answers) + ")"
        return [ItemCheck(evaluator="regex_match", args={"pattern": pattern}, metric="match", label="Match")]
    if eval_class == "includes":
        return [
            ItemCheck(
                evaluator="contains",
                args={"case_sensitive": True},
                values=answers,
                metric="includes",
                label="Includes",
            )
        ]
    return [ItemCheck(evaluator="fuzzy_match", values=answers, metric="fuzzy_match", label="FuzzyMatch")]


def _sample_input(sample: Mapping[str, Any], where: str) -> dict[str, Any]:
    prompt = sample.get("input")
    if isinstance(prompt, list) and all(isinstance(m, dict) and "role" in m for m in prompt):
        return {"messages": prompt}
    if isinstance(prompt, str):
        return {"prompt": prompt}
    raise ImportFileError(f"{where}: `input` must be a list of chat messages ({{role, content}}) or a string")


def _samples(path: Path, rows: list[dict[str, Any]], eval_class: EvalClass) -> list[ImportedCase]:
    cases = []
    for number, row in enumerate(rows, start=1):
        where = f"{path} line {number}"
        if "ideal" not in row:
            raise ImportFileError(f"{where}: no `ideal`: the basic evals need the expected answer(s)")
        extra = {k: v for k, v in row.items() if k not in ("input", "ideal")}
        cases.append(
            ImportedCase(
                base_id=f"sample-{number:04d}",
                input=_sample_input(row, where),
                checks=_sample_checks(row["ideal"], eval_class, where),
                metadata={"source": "openai-evals", "eval_class": eval_class, **extra},
            )
        )
    return cases


def _registry(path: Path, eval_name: str | None) -> tuple[Path, EvalClass]:
    try:
        raw = load_yaml(read_text(path))
    except yaml.YAMLError as exc:
        raise ImportFileError(f"{path}: not valid YAML: {exc}") from exc
    if not isinstance(raw, dict):
        raise ImportFileError(f"{path}: not an evals registry file (a mapping of eval names)")
    specs = {k: v for k, v in raw.items() if isinstance(v, dict) and "class" in v}
    if eval_name is not None:
        entry = raw.get(eval_name)
        if isinstance(entry, dict) and "id" in entry:
            eval_name = str(entry["id"])
        specs = {k: v for k, v in specs.items() if k == eval_name}
    if len(specs) != 1:
        names = ", ".join(k for k, v in raw.items() if isinstance(v, dict) and "id" in v) or "none"
        raise ImportFileError(f"{path}: name the eval to import with --eval (evals here: {names})")
    spec_name, spec = next(iter(specs.items()))
    cls = str(spec.get("class"))
    if cls not in CLASSES:
        raise ImportFileError(
            f"{path}: {spec_name} uses {cls}; only the basic Match, Includes and FuzzyMatch evals are "
            "imported (model-graded and custom eval classes run code or prompts of their own)"
        )
    samples = (spec.get("args") or {}).get("samples_jsonl")
    if not isinstance(samples, str):
        raise ImportFileError(f"{path}: {spec_name} names no args.samples_jsonl")
    for candidate in (path.parent.parent / "data" / samples, path.parent / samples):
        if candidate.is_file():
            return candidate, CLASSES[cls]
    raise ImportFileError(
        f"{path}: {spec_name}'s samples {samples} not found under registry/data/ or beside it"
    )


def _reference(template: Any, item: Mapping[str, Any]) -> Any:
    if not isinstance(template, str):
        return template
    ref = _ITEM_REF.match(template.strip())
    if not ref:
        if "{{" in template:
            raise ValueError(f"reference {template!r} is a template other than {{{{item.KEY}}}}")
        return template
    current: Any = item
    for part in ref.group(1).split("."):
        if not isinstance(current, Mapping) or part not in current:
            raise ValueError(f"the item has no {ref.group(1)!r} for reference {template!r}")
        current = current[part]
    return current if isinstance(current, str) else json.dumps(current)


def _criterion_checks(criterion: Mapping[str, Any], item: Mapping[str, Any]) -> list[ItemCheck]:
    """One testing criterion on one item (raises ``ValueError`` with the reason it is refused)."""
    kind = str(criterion.get("type"))
    metric = slug(str(criterion.get("name") or kind), 64).replace("-", "_") or kind
    metric = metric if metric[0].isalpha() else f"m_{metric}"
    label = f"{criterion.get('name') or kind} ({kind})"
    if str(criterion.get("input", "")).strip() not in _OUTPUT_REFS:
        raise ValueError("it grades something other than {{sample.output_text}}")
    reference = _reference(criterion.get("reference"), item)
    if kind == "string_check":
        operation = criterion.get("operation")
        if operation in ("eq", "ne"):
            args: dict[str, Any] = {"expected": reference, "strip": False}
            return [
                ItemCheck(
                    evaluator="exact_match", args=args, negate=operation == "ne", metric=metric, label=label
                )
            ]
        if operation in ("like", "ilike"):
            args = {"expected": reference, "case_sensitive": operation == "like"}
            return [ItemCheck(evaluator="contains", args=args, metric=metric, label=label)]
        raise ValueError(f"operation {operation!r} is not one of eq, ne, like, ilike")
    if kind == "text_similarity":
        if criterion.get("evaluation_metric") != "fuzzy_match":
            raise ValueError(f"no Yardstick evaluator computes {criterion.get('evaluation_metric')!r}")
        threshold = float(criterion.get("pass_threshold", 0.8))
        return [
            ItemCheck(
                evaluator="string_similarity",
                args={"expected": reference},
                threshold=threshold,
                metric=metric,
                label=label,
            )
        ]
    raise ValueError(
        "a model or code grader with its own prompt/labels; write its intent as an llm_rubric "
        "criterion or an evaluator plugin"
        if kind in ("label_model", "score_model", "python", "multi")
        else "no Yardstick evaluator has the same meaning"
    )


def _criteria(path: Path | None) -> list[Mapping[str, Any]] | None:
    if path is None:
        return None
    text = read_text(path)
    try:
        raw = json.loads(text)
    except json.JSONDecodeError:
        try:
            raw = load_yaml(text)
        except yaml.YAMLError as exc:
            raise ImportFileError(f"{path}: neither JSON nor YAML: {exc}") from exc
    if isinstance(raw, dict):
        raw = raw.get("testing_criteria")
    if not isinstance(raw, list) or not all(isinstance(c, dict) for c in raw):
        raise ImportFileError(
            f"{path}: expected the eval object (with testing_criteria) or the list of criteria"
        )
    return raw


def _api_items(
    path: Path, rows: list[dict[str, Any]], criteria: list[Mapping[str, Any]] | None
) -> tuple[list[ImportedCase], list[Unsupported]]:
    unsupported: list[Unsupported] = []
    if criteria is None:
        unsupported.append(
            Unsupported(
                "eval",
                "testing_criteria",
                "none given: pass --criteria with the eval object (GET /v1/evals/{id}) so its checks "
                "come along",
            )
        )
    refused: set[int] = set()
    cases = []
    for number, row in enumerate(rows, start=1):
        item = row.get("item")
        if not isinstance(item, dict):
            raise ImportFileError(f"{path} line {number}: no `item` object (the Evals API data source form)")
        checks: list[ItemCheck] = []
        for index, criterion in enumerate(criteria or []):
            try:
                checks += _criterion_checks(criterion, item)
            except ValueError as exc:
                if index not in refused:
                    refused.add(index)
                    where = f"criterion #{index + 1} ({criterion.get('name') or '?'})"
                    unsupported.append(Unsupported(where, str(criterion.get("type")), str(exc)))
        cases.append(
            ImportedCase(
                base_id=f"sample-{number:04d}",
                input=item,
                checks=checks,
                metadata={"source": "openai-evals-api"},
            )
        )
    return cases, unsupported


def import_openai_evals(
    path: Path,
    name: str | None = None,
    eval_class: EvalClass | None = None,
    eval_name: str | None = None,
    criteria: Path | None = None,
) -> Imported:
    """Read an OpenAI Evals samples file, registry YAML or API data file (see the module docstring)."""
    if not path.is_file():
        raise ImportFileError(
            f"{path}: no such file: give a samples .jsonl, a registry .yaml or an API data file"
        )
    samples_path = path
    if path.suffix in (".yaml", ".yml"):
        samples_path, registry_class = _registry(path, eval_name)
        eval_class = eval_class or registry_class
    rows = _jsonl(samples_path)
    unsupported: list[Unsupported] = []
    if "item" in rows[0]:
        cases, unsupported = _api_items(samples_path, rows, _criteria(criteria))
        source = "the OpenAI Evals API"
    elif "input" in rows[0]:
        cases = _samples(samples_path, rows, eval_class or "match")
        source = f"OpenAI Evals ({eval_class or 'match'})"
    else:
        raise ImportFileError(
            f"{samples_path}: line 1 has neither `input` (evals samples) nor `item` (Evals API data source)"
        )
    dataset_name = name or slug(
        samples_path.parent.name if samples_path.stem == "samples" else samples_path.stem
    )
    dataset = build_dataset(dataset_name or "openai-evals", f"Imported from {source}", cases, str(path))
    return Imported(dataset, unsupported, [])
