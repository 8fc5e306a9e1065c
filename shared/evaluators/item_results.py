"""What run-level evaluators receive: one result per (item, trial).

Run-level evaluators accept both Yardstick's :class:`ItemResult` and Langfuse's
``ExperimentItemResult`` (duck-typed: ``.item`` — a dict or a dataset item object — ``.output``
and ``.evaluations``). :func:`as_item_result` turns either (or a plain dict) into an
:class:`ItemResult`, so evaluators never care which one they got.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Literal

from pydantic import BaseModel, Field

from yardstick.api.evaluation import Evaluation


class ItemResult(BaseModel):
    """One scored (item, trial) of an experiment."""

    item_id: str | None = Field(default=None, description="Dataset item id")
    trial: int = Field(default=0, ge=0)
    input: Any = None
    output: Any = None
    expected_output: Any = None
    metadata: dict[str, Any] = Field(default_factory=dict, description="Item metadata (category, …)")
    evaluations: list[Evaluation] = Field(default_factory=list, description="Item-level scores")
    status: Literal["ok", "error"] = "ok"

    def score(self, name: str) -> float | None:
        """The numeric value of the first evaluation called ``name`` (None if absent or None)."""
        for evaluation in self.evaluations:
            if evaluation.name == name:
                return evaluation.numeric
        return None


def coerce_evaluation(obj: Any, default_name: str = "evaluation") -> Evaluation:
    """An :class:`Evaluation` from ours, a dict, or a duck-typed object (e.g. ``langfuse.Evaluation``).

    Langfuse allows categorical (string) values; a string that is not a number becomes
    value None with the raw value kept in ``metadata["raw_value"]``.
    """
    if isinstance(obj, Evaluation):
        return obj
    if isinstance(obj, Mapping):
        fields = dict(obj)
    else:
        fields = {
            "name": getattr(obj, "name", default_name),
            "value": getattr(obj, "value", None),
            "comment": getattr(obj, "comment", None),
            "metadata": getattr(obj, "metadata", None) or {},
            "error": getattr(obj, "error", None),
        }
    fields.setdefault("name", default_name)
    value = fields.get("value")
    if isinstance(value, str):
        try:
            fields["value"] = float(value)
        except ValueError:
            fields["value"] = None
            fields["metadata"] = {**(fields.get("metadata") or {}), "raw_value": value}
    if fields.get("metadata") is None:
        fields["metadata"] = {}
    return Evaluation.model_validate(fields)


def _field(obj: Any, name: str, default: Any = None) -> Any:
    if isinstance(obj, Mapping):
        return obj.get(name, default)
    return getattr(obj, name, default)


def as_item_result(obj: Any) -> ItemResult:
    """Normalise one run-level input (ours, a dict, or a Langfuse ExperimentItemResult)."""
    if isinstance(obj, ItemResult):
        return obj
    if isinstance(obj, Mapping) and "item" not in obj:
        return ItemResult.model_validate(
            {**obj, "evaluations": [coerce_evaluation(e) for e in obj.get("evaluations") or []]}
        )
    item = _field(obj, "item")
    item_id = _field(item, "id") if item is not None else _field(obj, "item_id")
    return ItemResult(
        item_id=None if item_id is None else str(item_id),
        trial=int(_field(obj, "trial", 0) or 0),
        input=_field(item, "input") if item is not None else None,
        output=_field(obj, "output"),
        expected_output=_field(item, "expected_output") if item is not None else None,
        metadata=dict(_field(item, "metadata") or {}) if item is not None else {},
        evaluations=[coerce_evaluation(e) for e in _field(obj, "evaluations") or []],
        status="error" if _field(obj, "status") == "error" else "ok",
    )


def as_item_results(objs: Iterable[Any]) -> list[ItemResult]:
    """:func:`as_item_result` over a list."""
    return [as_item_result(o) for o in objs]
