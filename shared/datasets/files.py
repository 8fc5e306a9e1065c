"""Dataset files: YAML / JSON / JSONL in the generic item format, plus the seeds' own formats.

Generic format (YAML or JSON)::

    name: drive-thru/order-correctness-v1
    description: …
    kind: drive_thru
    items:
      - id: order-correctness-000
        input: {customer_utterance: "…"}
        expected_output: {expected_items: […]}
        metadata: {category: simple_order, difficulty: easy}

JSONL: one item object per line (the dataset name is the file's stem unless given).
A top-level ``cases`` (the golden retrieval format), ``test_cases`` (the trajectory-scenario format) or
``conversations`` (scripted conversations, ``shared.datasets.conversations``) is converted to items by
the matching module. Items of a ``conversation`` dataset are checked against the conversation item shape.

Unknown fields are refused, on an item and at the top level, naming the item (counted from 1, as
JSONL lines are: ``item 3 (line 3)``), the field and the closest known name; free-form data goes
under ``metadata``. ``yardstick.api.datasets.validate_items`` applies the same rule to items given in
code (the SDK).

Files are read bounded: at most ``MAX_FILE_BYTES``, UTF-8 only, and YAML whose aliases (``*a``)
expand to at most ``MAX_EXPANDED_NODES`` values (nine nested aliases stand for billions: the
"billion laughs"). A dataset has at least one item.
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from yardstick.api.datasets import DatasetItemIn
from yardstick.api.item_errors import item_label, problem_lines

MUST_PASS_KEY = "must_pass"
"""The item metadata key that marks a must-pass item (``shared.analysis.broken_items`` reads it)."""
_ID_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._:/-]{0,199}$")
MAX_FILE_BYTES = 200 * 2**20


MAX_EXPANDED_NODES = 2_000_000


def _expanded_size(node: yaml.Node, sizes: dict[int, int]) -> int:
    """Nodes the document holds once every alias is spelled out (each shared node counted per use)."""
    key = id(node)
    if key not in sizes:
        sizes[key] = 1  # a node that contains itself counts once (PyYAML refuses recursion anyway)
        children: list[yaml.Node] = []
        if isinstance(node, yaml.SequenceNode):
            children = list(node.value)
        elif isinstance(node, yaml.MappingNode):
            children = [part for pair in node.value for part in pair]
        sizes[key] = 1 + sum(_expanded_size(child, sizes) for child in children)
    return sizes[key]


class _BoundedLoader(yaml.SafeLoader):
    """``yaml.SafeLoader`` that refuses a document whose aliases expand past ``MAX_EXPANDED_NODES``
    (the "billion laughs": nine nested aliases in a few lines stand for billions of nodes)."""

    def compose_document(self) -> Any:
        node = super().compose_document()  # type: ignore[no-untyped-call]
        if node is not None and _expanded_size(node, {}) > MAX_EXPANDED_NODES:
            raise yaml.composer.ComposerError(
                None,
                None,
                f"its aliases (*name) expand to more than {MAX_EXPANDED_NODES:,} values: write the items out",
                node.start_mark,
            )
        return node


class DatasetFileError(ValueError):
    """A dataset file (or items given in code) is invalid; the message names the file, the item and
    the field."""


class DatasetFile(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str = Field(min_length=1, max_length=200)
    description: str = ""
    kind: str = "generic"
    metadata: dict[str, Any] = Field(default_factory=dict)
    must_pass_categories: list[str] = Field(
        default_factory=list,
        exclude=True,
        description="Every item whose metadata 'category' is one of these is must-pass",
    )
    items: list[DatasetItemIn] = Field(min_length=1)

    @model_validator(mode="after")
    def _mark_must_pass_categories(self) -> DatasetFile:
        categories = set(self.must_pass_categories)
        for item in self.items:
            if item.metadata.get("category") in categories:
                item.metadata.setdefault(MUST_PASS_KEY, True)
        return self


def content_hash(items: list[DatasetItemIn]) -> str:
    """Hash of a version's content: independent of item order."""
    digest = hashlib.sha256()
    for item_hash in sorted(item.content_hash() for item in items):
        digest.update(item_hash.encode())
    return digest.hexdigest()


def read_text(path: Path) -> str:
    """The file's text: at most ``MAX_FILE_BYTES``, UTF-8, not empty (else :class:`DatasetFileError`)."""
    if not path.is_file():
        raise DatasetFileError(f"{path}: no such file")
    size = path.stat().st_size
    if size > MAX_FILE_BYTES:
        raise DatasetFileError(
            f"{path}: {size / 2**20:.0f} MiB is more than {MAX_FILE_BYTES / 2**20:.0f} MiB: split it into "
            "several files and push them with --merge"
        )
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise DatasetFileError(f"{path}: not UTF-8 text (byte {exc.start}): save it as UTF-8") from exc
    if not text.strip():
        raise DatasetFileError(f"{path}: the file is empty")
    return text


def load_yaml(text: str) -> Any:
    """YAML (or JSON) text read safely, its aliases bounded (raises ``yaml.YAMLError``)."""
    return yaml.load(text, Loader=_BoundedLoader)


def _read(path: Path) -> tuple[Any, list[int] | None]:
    """The file's content, and for JSONL the line number of each item."""
    text = read_text(path)
    try:
        if path.suffix == ".jsonl":
            rows, lines = [], []
            for number, line in enumerate(text.splitlines(), start=1):
                if line.strip():
                    try:
                        rows.append(json.loads(line))
                    except json.JSONDecodeError as exc:
                        raise DatasetFileError(f"{path}: line {number} is not valid JSON: {exc.msg}") from exc
                    lines.append(number)
            return {"name": path.stem, "items": rows}, lines
        if path.suffix == ".json":
            return json.loads(text), None
        return load_yaml(text), None
    except (json.JSONDecodeError, yaml.YAMLError) as exc:
        raise DatasetFileError(f"{path}: not valid {path.suffix.lstrip('.').upper()}: {exc}") from exc


def _convert_seed_formats(path: Path, raw: dict[str, Any]) -> dict[str, Any]:
    """The seeds' own formats in the generic shape; a top-level ``must_pass_categories`` is kept."""
    if "items" in raw or "must_pass_categories" not in raw:
        return _converted(path, raw)
    categories = raw["must_pass_categories"]
    converted = _converted(path, {k: v for k, v in raw.items() if k != "must_pass_categories"})
    return {**converted, "must_pass_categories": categories}


def _converted(path: Path, raw: dict[str, Any]) -> dict[str, Any]:
    if "cases" in raw and "items" not in raw:
        from shared.datasets.retrieval_golden import golden_file_to_dataset

        converted: dict[str, Any] = golden_file_to_dataset(path, raw)
        return converted
    if "test_cases" in raw and "items" not in raw:
        from shared.datasets.trajectory_scenarios import scenarios_file_to_dataset

        return scenarios_file_to_dataset(path, raw)
    if "conversations" in raw and "items" not in raw:
        from shared.datasets.conversations import conversations_file_to_dataset

        return conversations_file_to_dataset(path, raw)
    return raw


def load_dataset_file(path: Path, name: str | None = None) -> DatasetFile:
    """Read and validate a dataset file; raises :class:`DatasetFileError` with precise locations."""
    if not path.exists():
        raise DatasetFileError(f"{path}: no such file")
    if path.suffix not in (".yaml", ".yml", ".json", ".jsonl"):
        raise DatasetFileError(f"{path}: unsupported extension {path.suffix!r}; use .yaml, .json or .jsonl")
    raw, lines = _read(path)
    if not isinstance(raw, dict):
        raise DatasetFileError(f"{path}: top level must be a mapping with 'name' and 'items'")
    raw = _convert_seed_formats(path, raw)
    if name:
        raw = {**raw, "name": name}
    raw.setdefault("name", path.stem)
    try:
        dataset = DatasetFile.model_validate(raw)
    except ValidationError as exc:
        raise DatasetFileError(
            f"{path}: invalid dataset\n{problem_lines(exc, DatasetFile, raw.get('items'), lines=lines)}"
        ) from exc
    seen: set[str] = set()
    for index, item in enumerate(dataset.items):
        if item.id in seen:
            label = item_label(index, None, lines[index] if lines else None)
            raise DatasetFileError(f"{path}: {label} repeats id {item.id!r}; ids must be unique")
        seen.add(item.id)
    if dataset.kind == "conversation":
        from shared.datasets.conversations import check_conversation_items

        check_conversation_items([item.model_dump(exclude_none=True) for item in dataset.items], str(path))
    return dataset
