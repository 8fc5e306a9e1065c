"""HTTP bodies of ``/datasets``: a dataset, its versions, and the items pushed into it.

``DatasetItemIn`` is one item as a dataset file and ``POST /datasets/{name}/items`` give it: an id of
1-200 letters, digits, ``.``, ``_``, ``:``, ``/`` or ``-``, an input, an optional expected output and
metadata (``must_pass: true`` is stored as the metadata key ``must_pass``). Ids are unique in one push.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections import Counter
from collections.abc import Iterable, Mapping
from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator
from pydantic_core import ErrorDetails

from yardstick.api.item_errors import problem_lines

MUST_PASS_KEY = "must_pass"

_ID_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._:/-]{0,199}$")


class DatasetItemIn(BaseModel):
    model_config = ConfigDict(extra="forbid")  # a misspelt field is refused, not dropped
    id: str = Field(
        description="Deterministic item id, unique in the dataset",
        json_schema_extra={"pattern": _ID_RE.pattern},  # documented; checked (with a clear message) below
    )
    input: dict[str, Any]
    expected_output: dict[str, Any] | None = None
    metadata: dict[str, Any] = Field(default_factory=dict)
    must_pass: bool = Field(
        default=False,
        exclude=True,
        description="A must-pass item: if it passes in a baseline and fails in a candidate, the "
        "comparison fails whatever the means say. Stored as the item's metadata 'must_pass'",
    )

    @model_validator(mode="after")
    def _must_pass_in_metadata(self) -> DatasetItemIn:
        if self.must_pass:
            self.metadata[MUST_PASS_KEY] = True
        return self

    @field_validator("id")
    @classmethod
    def _valid_id(cls, value: str) -> str:
        if not _ID_RE.match(value):
            raise ValueError("must be 1-200 characters of letters, digits, '.', '_', ':', '/', '-'")
        return value

    def content_hash(self) -> str:
        payload = json.dumps(self.model_dump(mode="json"), sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(payload.encode()).hexdigest()


class DatasetCreate(BaseModel):
    name: str = Field(min_length=1, max_length=200)
    description: str = Field(default="", max_length=10_000)
    kind: str = Field(default="generic", min_length=1, max_length=50)


class DatasetSettings(BaseModel):
    """What a dataset is, besides its name and items."""

    description: str = Field(default="", max_length=10_000)
    kind: str = Field(default="generic", min_length=1, max_length=50)


class ItemsUpsert(BaseModel):
    items: list[DatasetItemIn] = Field(min_length=1, max_length=200_000)
    replace: bool = Field(
        default=False, description="True: the new version is exactly these items; False: merge by id"
    )
    source: str = Field(default="api", max_length=200)
    create: DatasetSettings | None = Field(
        default=None,
        description="Create the dataset with these settings if it does not exist yet (in the same "
        "transaction as its first version: a refused push leaves nothing behind); an existing "
        "dataset's description is updated",
    )

    @model_validator(mode="after")
    def _unique_ids(self) -> ItemsUpsert:
        duplicates = sorted(item_id for item_id, n in Counter(i.id for i in self.items).items() if n > 1)
        if duplicates:
            shown = ", ".join(duplicates[:5]) + (" …" if len(duplicates) > 5 else "")
            raise ValueError(f"item ids must be unique in one request; repeated: {shown}")
        return self


class DatasetVersionOut(BaseModel):
    version: int
    content_hash: str
    item_count: int
    source: str
    status: Literal["accepted", "needs_review"] = Field(
        default="accepted", description="needs_review: promoted turns; not used by default until accepted"
    )
    created_at: datetime


class DatasetOut(BaseModel):
    id: str
    name: str
    description: str
    kind: str
    created_at: datetime
    latest_version: DatasetVersionOut | None = None


class UpsertResult(BaseModel):
    dataset: str
    version: int
    created_new_version: bool
    item_count: int
    added: int
    changed: int
    unchanged: int
    removed: int


class InvalidItems(ValueError):
    """Items given in code that a dataset refuses: the message names each item (counted from 1) and
    field, with the closest known name."""


def validate_items(
    items: Iterable[DatasetItemIn | Mapping[str, Any]], source: str = "items"
) -> list[DatasetItemIn]:
    """Items given in code (dicts or models), each checked as a dataset file's item is (the SDK's
    ``push_dataset`` calls this before sending anything); raises :class:`InvalidItems`."""
    given = list(items)
    checked: list[DatasetItemIn] = []
    errors: list[ErrorDetails] = []
    for index, item in enumerate(given):
        if isinstance(item, DatasetItemIn):
            checked.append(item)
            continue
        try:
            checked.append(DatasetItemIn.model_validate(item))
        except ValidationError as exc:
            errors += [{**e, "loc": ("items", index, *e["loc"])} for e in exc.errors(include_url=False)]
    if errors:
        raise InvalidItems(f"{source}: invalid dataset items\n{problem_lines(errors, ItemsUpsert, given)}")
    return checked
