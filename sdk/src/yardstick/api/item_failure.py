"""Why an item (or one of its scores) has no result: one typed failure, wherever it happened.

Rules:

- ``source`` says whose fault it is: ``target`` (the system under test raised, refused, timed out,
  or stayed unavailable after every retry), ``evaluator`` (a scorer raised, is unknown or refused its
  arguments; ``evaluator`` and ``evaluator_version`` name it) or ``platform`` (Yardstick itself: an
  item not run because the budget ran out, a worker bug, a source experiment's item that never ran).
- The traceback is bounded (:data:`TRACEBACK_LIMIT` characters, its end kept: the innermost frames
  and the exception's line are last).
- ``error``, the one-line ``'Type: message'`` string earlier versions stored and sent, is derived
  (:attr:`ItemFailure.summary`); a model carrying a failure (:class:`CarriesFailure`) still reads
  that string, from an older worker or row, as a failure of its default source.
"""

from __future__ import annotations

import re
import traceback as tb
from typing import Any, ClassVar, Literal

from pydantic import BaseModel, Field, computed_field, field_validator, model_validator

FailureSource = Literal["target", "evaluator", "platform"]

TRACEBACK_LIMIT = 8_000
"""Characters of traceback kept (the end of it)."""

NOT_RUN = "not run"
"""The type of an item the platform did not run (its budget ran out, its source experiment never ran it)."""

_LEGACY = re.compile(rf"^(?P<type>[A-Za-z_][\w.]*|{NOT_RUN})(?:: (?P<message>.*))?$", re.DOTALL)


class ItemFailure(BaseModel, frozen=True):
    """What went wrong, typed: whose fault, the exception's class and message, its traceback."""

    source: FailureSource = Field(description="target, evaluator or platform")
    type: str = Field(
        min_length=1,
        description="The exception's class name, e.g. 'TargetTimeout'; a platform failure without one "
        f"names its kind, e.g. {NOT_RUN!r}",
    )
    message: str = Field(default="", description="The exception's message")
    traceback: str = Field(
        default="", description=f"The formatted traceback, its last {TRACEBACK_LIMIT} characters"
    )
    evaluator: str | None = Field(default=None, description="The evaluator that failed (source evaluator)")
    evaluator_version: str | None = Field(default=None, description="Its declared version")

    @field_validator("traceback")
    @classmethod
    def _bounded(cls, value: str) -> str:
        return value if len(value) <= TRACEBACK_LIMIT else "…" + value[-(TRACEBACK_LIMIT - 1) :]

    @model_validator(mode="after")
    def _evaluator_named(self) -> ItemFailure:
        if self.source == "evaluator" and not self.evaluator:
            raise ValueError("an evaluator failure names its evaluator")
        if self.source != "evaluator" and (self.evaluator or self.evaluator_version):
            raise ValueError(f"a {self.source} failure names no evaluator")
        return self

    @property
    def summary(self) -> str:
        """``'Type: message'`` (``'Type'`` alone without a message): the string older readers show."""
        return f"{self.type}: {self.message}" if self.message else self.type

    @property
    def label(self) -> str:
        """What failed: the evaluator as ``name@version`` (``name`` without a version), else the source."""
        if self.evaluator is None:
            return self.source
        return (
            self.evaluator if self.evaluator_version is None else f"{self.evaluator}@{self.evaluator_version}"
        )

    @classmethod
    def of(
        cls,
        source: FailureSource,
        exc: BaseException,
        *,
        message: str | None = None,
        evaluator: str | None = None,
        evaluator_version: str | None = None,
    ) -> ItemFailure:
        """The failure ``exc`` is (its message replaced by ``message`` when given)."""
        return cls(
            source=source,
            type=type(exc).__name__,
            message=str(exc) if message is None else message,
            traceback="".join(tb.format_exception(exc)),
            evaluator=evaluator,
            evaluator_version=evaluator_version,
        )

    @classmethod
    def from_summary(cls, text: str, source: FailureSource, evaluator: str | None = None) -> ItemFailure:
        """The failure an older ``'Type: message'`` (or bare ``'Type'``) string stands for: its
        :attr:`summary` is that string again; type ``Error`` with the whole text as the message when
        the string does not start with a type."""
        found = _LEGACY.match(text)
        if found is None:
            return cls(source=source, type="Error", message=text, evaluator=evaluator)
        return cls(source=source, type=found["type"], message=found["message"] or "", evaluator=evaluator)


class CarriesFailure(BaseModel):
    """A model with a ``failure`` and the derived ``error`` string (serialized, so a reader of the
    previous version still finds it). Reads older input too: an ``error`` string without a
    ``failure`` becomes one of :attr:`legacy_source`; a failure without ``source`` gets it."""

    legacy_source: ClassVar[FailureSource] = "target"

    failure: ItemFailure | None = Field(default=None, description="Why there is no result; None: none failed")

    @computed_field(description="'Type: message' of the failure (derived; kept for older readers)")  # type: ignore[prop-decorator]
    @property
    def error(self) -> str | None:
        return None if self.failure is None else self.failure.summary

    @classmethod
    def _legacy_evaluator(cls, data: dict[str, Any]) -> str | None:
        return None

    @model_validator(mode="before")
    @classmethod
    def _read_legacy(cls, data: Any) -> Any:
        if not isinstance(data, dict) or ("error" not in data and not isinstance(data.get("failure"), dict)):
            return data
        data = dict(data)
        error = data.pop("error", None)
        failure = data.get("failure")
        if isinstance(failure, dict) and "source" not in failure:
            data["failure"] = {**failure, "source": cls.legacy_source}
        elif failure is None and isinstance(error, str) and error:
            data["failure"] = ItemFailure.from_summary(error, cls.legacy_source, cls._legacy_evaluator(data))
        return data
