"""What an importer produces: the dataset, what it could not bring over, and how to run it.

Rules every importer keeps:
- an item's id is derived from the source deterministically (a description's slug, else the
  test's position) and made unique with ``-2``, ``-3``…; importing the same file twice gives the
  same items, so the second push makes no new version;
- expectations become :class:`~shared.contracts.item_checks.ItemCheck` entries in the item's
  ``expected_output.checks``, run by the one ``item_checks`` evaluator;
- a source check with no evaluator of the same meaning is listed as :class:`Unsupported` (naming
  the test and the check) and never dropped silently: the caller refuses the import, or leaves
  those checks out when the user asked for it;
- bad input raises :class:`ImportFileError` saying what is wrong and what to do.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field

from shared.contracts.item_checks import CHECKS_KEY, ItemCheck
from shared.datasets.files import DatasetFile, DatasetFileError
from yardstick.api.datasets import DatasetItemIn
from yardstick.api.evaluation import EvaluatorSpec

ITEM_CHECKS = "item_checks"


class ImportFileError(DatasetFileError):
    """The file to import is unreadable or not in the format expected; the message says what to do."""


@dataclass(frozen=True)
class Unsupported:
    """A check of the source that no Yardstick evaluator expresses."""

    where: str
    """The test (its description or position) and the check's position, e.g. ``test 3 assert #2``."""
    kind: str
    """The check's type in the source, e.g. ``javascript``."""
    reason: str

    def describe(self) -> str:
        return f"{self.where} ({self.kind}): {self.reason}"


@dataclass
class ImportedCase:
    """One item on its way: id base, input, checks, metadata."""

    base_id: str
    input: dict[str, object]
    checks: list[ItemCheck]
    metadata: dict[str, object] = field(default_factory=dict)


@dataclass
class Imported:
    """An importer's result (see the module docstring)."""

    dataset: DatasetFile
    unsupported: list[Unsupported]
    warnings: list[str]

    @property
    def uses_judge(self) -> bool:
        return any(
            check.get("evaluator") == "llm_rubric"
            for item in self.dataset.items
            for check in (item.expected_output or {}).get(CHECKS_KEY, [])
        )

    def evaluator(self, field_path: str | None = None) -> EvaluatorSpec:
        """The experiment-level spec that runs every item's checks."""
        return EvaluatorSpec(name=ITEM_CHECKS, args={"field": field_path} if field_path else {})


def slug(text: str, limit: int = 60) -> str:
    """``"Translate: Hello, world!"`` → ``translate-hello-world`` (ASCII, at most ``limit`` characters)."""
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    return re.sub(r"[^a-z0-9]+", "-", ascii_text.lower()).strip("-")[:limit].strip("-")


def build_dataset(name: str, description: str, cases: list[ImportedCase], source: str) -> DatasetFile:
    """The dataset of ``cases`` with unique ids (see the module docstring)."""
    if not cases:
        raise ImportFileError(f"{source}: no test cases found: add at least one test")
    seen: set[str] = set()
    items: list[DatasetItemIn] = []
    for case in cases:
        item_id, n = case.base_id, 1
        while item_id in seen:
            n += 1
            item_id = f"{case.base_id}-{n}"
        seen.add(item_id)
        items.append(
            DatasetItemIn(
                id=item_id,
                input=case.input,
                expected_output={CHECKS_KEY: [c.model_dump(exclude_defaults=True) for c in case.checks]},
                metadata=case.metadata,
            )
        )
    try:
        return DatasetFile(name=name, description=description, items=items)
    except ValueError as exc:
        raise ImportFileError(f"{source}: {exc}") from exc
