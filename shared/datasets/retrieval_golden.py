"""The golden retrieval format (``EvalDatasetSchema``): camelCase JSON with ``cases``.

``load_golden(path)`` validates a file (errors name the file, the case id and the field),
``check_ids_exist(golden, corpus_ids)`` checks the ground truth against a corpus, and
``to_dataset_items(golden)`` converts cases to Yardstick's generic dataset items. A file whose cases
carry ``expectedAnswer`` is a RAG golden set (dataset kind ``rag``): its items also hold the
expected answer, the required citations and the required entities."""

from __future__ import annotations

import json
from collections.abc import Iterable
from datetime import datetime
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from shared.datasets.files import DatasetFileError
from yardstick.api.item_errors import problem_lines

QueryType = Literal["temporal", "actor", "technical", "status", "multi-hop", "null"]
QUERY_TYPES: tuple[str, ...] = ("temporal", "actor", "technical", "status", "multi-hop", "null")


class GoldenFileError(DatasetFileError):
    """A golden dataset file is missing, not JSON, or does not follow the golden retrieval schema."""


class _Camel(BaseModel):
    model_config = ConfigDict(populate_by_name=True, extra="forbid")


class EvalCase(_Camel):
    id: str = Field(min_length=1, max_length=200)
    query: str = Field(min_length=5, max_length=500)
    query_type: QueryType = Field(alias="queryType")
    expected_observation_ids: list[str] = Field(alias="expectedObservationIds")
    graded_relevance: dict[str, int] | None = Field(
        default=None, alias="gradedRelevance", description="observation id -> relevance 0..3"
    )
    expected_answer: str | None = Field(default=None, alias="expectedAnswer")
    required_citations: list[str] | None = Field(default=None, alias="requiredCitations")
    required_entities: list[str] | None = Field(default=None, alias="requiredEntities")
    complexity: Literal["simple", "medium", "complex"]
    source: Literal["manual", "synthetic", "production"]
    annotator: str | None = None
    notes: str | None = None
    metadata: dict[str, Any] | None = None

    @model_validator(mode="after")
    def _consistent(self) -> EvalCase:
        for obs_id, grade in (self.graded_relevance or {}).items():
            if not 0 <= grade <= 3:
                raise ValueError(f"gradedRelevance[{obs_id!r}] = {grade} is outside 0..3")
        if self.query_type == "null" and self.expected_observation_ids:
            raise ValueError("a 'null' query expects no observations: empty expectedObservationIds")
        return self


class EvalDataset(_Camel):
    version: str
    created_at: datetime = Field(alias="createdAt")
    description: str
    workspace_id: str = Field(alias="workspaceId")
    must_pass_categories: list[str] = Field(
        default_factory=list,
        description="Query types whose cases are must-pass in comparisons (marked when converted to items)",
    )
    cases: list[EvalCase]

    @model_validator(mode="after")
    def _unique_ids(self) -> EvalDataset:
        ids = [case.id for case in self.cases]
        duplicates = sorted({i for i in ids if ids.count(i) > 1})
        if duplicates:
            raise ValueError(f"duplicate case ids: {duplicates}")
        return self

    def to_json(self) -> str:
        return self.model_dump_json(by_alias=True, exclude_none=True, indent=2) + "\n"


def _describe(path: Path | str, exc: ValidationError, raw: Any) -> str:
    cases = raw.get("cases") if isinstance(raw, dict) else None
    return f"{path}: invalid golden dataset\n" + problem_lines(
        exc, EvalDataset, cases, key="cases", noun="case"
    )


def parse_golden(raw: Any, source: Path | str = "<golden>") -> EvalDataset:
    try:
        return EvalDataset.model_validate(raw)
    except ValidationError as exc:
        raise GoldenFileError(_describe(source, exc, raw)) from exc


def load_golden(path: Path) -> EvalDataset:
    """Read and validate a golden dataset file."""
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError as exc:
        raise GoldenFileError(f"{path}: no such golden dataset file") from exc
    except json.JSONDecodeError as exc:
        raise GoldenFileError(f"{path}: not valid JSON: {exc}") from exc
    return parse_golden(raw, path)


def missing_ids(golden: EvalDataset, corpus_ids: Iterable[str]) -> dict[str, list[str]]:
    """case id -> expected / graded ids that are not in the corpus (empty when all resolve)."""
    known = set(corpus_ids)
    problems: dict[str, list[str]] = {}
    for case in golden.cases:
        wanted = [
            *case.expected_observation_ids,
            *(case.graded_relevance or {}),
            *(case.required_citations or []),
        ]
        absent = sorted({obs_id for obs_id in wanted if obs_id not in known})
        if absent:
            problems[case.id] = absent
    return problems


def check_ids_exist(golden: EvalDataset, corpus_ids: Iterable[str]) -> None:
    """Raise :class:`GoldenFileError` naming every case whose ground truth is not in the corpus."""
    problems = missing_ids(golden, corpus_ids)
    if problems:
        detail = "; ".join(f"{case_id}: {ids}" for case_id, ids in sorted(problems.items()))
        raise GoldenFileError(f"expected ids missing from the corpus: {detail}")


def to_dataset_items(golden: EvalDataset) -> list[dict[str, Any]]:
    """Generic Yardstick items: input.query, expected_output.relevant_ids/graded_relevance, plus
    expected_answer/required_citations/required_entities when the case has them."""
    items: list[dict[str, Any]] = []
    for case in golden.cases:
        graded = case.graded_relevance or {obs_id: 1 for obs_id in case.expected_observation_ids}
        expected: dict[str, Any] = {
            "relevant_ids": list(case.expected_observation_ids),
            "graded_relevance": dict(graded),
        }
        if case.expected_answer is not None:
            expected["expected_answer"] = case.expected_answer
        if case.required_citations is not None:
            expected["required_citations"] = list(case.required_citations)
        if case.required_entities is not None:
            expected["required_entities"] = list(case.required_entities)
        items.append(
            {
                "id": case.id,
                "input": {"query": case.query},
                "expected_output": expected,
                "metadata": {
                    "query_type": case.query_type,
                    "category": case.query_type,
                    "complexity": case.complexity,
                    "source": case.source,
                },
            }
        )
    return items


def dataset_kind(golden: EvalDataset) -> str:
    """``rag`` when any case has an expected answer (answer evaluators apply), else ``retrieval``."""
    return "rag" if any(case.expected_answer is not None for case in golden.cases) else "retrieval"


def golden_file_to_dataset(path: Path, raw: dict[str, Any]) -> dict[str, Any]:
    """A parsed golden file in the generic dataset-file shape, for ``shared.datasets.files``."""
    golden = parse_golden(raw, path)
    return {
        "name": str(raw.get("name") or path.stem),
        "description": golden.description,
        "kind": dataset_kind(golden),
        "metadata": {
            "format": "retrieval_golden",
            "version": golden.version,
            "workspaceId": golden.workspace_id,
        },
        "items": to_dataset_items(golden),
    }
