"""A JSONB column written from and read back into one pydantic model.

Stored documents (an experiment's config and aggregates, a comparison's config and report) leave
the database as their model, never as a dict read with ``.get(key, default)``.
"""

from __future__ import annotations

from typing import Any, Generic, TypeVar

from pydantic import BaseModel
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.engine import Dialect
from sqlalchemy.types import TypeDecorator

M = TypeVar("M", bound=BaseModel)


class PydanticJSON(TypeDecorator[M], Generic[M]):
    """``PydanticJSON(Model)``: binds ``Model`` instances as JSON, loads rows as ``Model``. With
    ``none_as_null``, None is SQL NULL (``IS NULL`` finds it), not the JSON ``null``."""

    impl = JSONB
    cache_ok = True

    def __init__(self, model: type[M], *, none_as_null: bool = False) -> None:
        super().__init__(none_as_null=none_as_null)
        self.model = model

    def process_bind_param(self, value: M | None, dialect: Dialect) -> dict[str, Any] | None:
        if value is None:
            return None
        if not isinstance(value, self.model):
            raise TypeError(f"expected {self.model.__name__}, got {type(value).__name__}")
        return value.model_dump(mode="json")

    def process_result_value(self, value: Any, dialect: Dialect) -> M | None:
        return None if value is None else self.model.model_validate(value)
