"""Many rows of one ORM table written in one statement: ``INSERT ... SELECT FROM unnest(arrays)``.

The sampler writes a fetched batch's traces, spans and scores one statement per table. Going
through the ORM's bulk insert cost more than the rest of storing (a bind processor and a parameter
dict per row, JSON written by the standard library); here each column is one array parameter
encoded by asyncpg, JSON documents are written by pydantic, and the statement runs on the session's
own connection, inside its transaction (the caller commits).

Rules:

- rows are dicts keyed by the ORM attribute names (as :func:`~shared.db.outcome_rows.trace_score_row`
  makes them); every row names the same attributes; columns left out take their server default;
- a JSONB column takes a pydantic model (written with ``model_dump_json``), a :class:`JsonText`
  (sent as it is), a plain JSON value, or None (SQL NULL); an array column takes a list of strings;
- ``conflict``: the unique key's columns, with ``update`` (columns set from the incoming row) or
  nothing done; ``returning``: columns whose values come back, one tuple per row written.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from pydantic import BaseModel
from sqlalchemy import Column, inspect
from sqlalchemy.dialects import postgresql
from sqlalchemy.dialects.postgresql import ARRAY, JSONB
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import Mapper
from sqlalchemy.types import TypeDecorator

_DIALECT = postgresql.dialect()  # type: ignore[no-untyped-call]


def _is(column: Column[Any], kind: type) -> bool:
    impl = column.type.impl if isinstance(column.type, TypeDecorator) else column.type
    return isinstance(impl, kind)


class JsonText(str):
    """A JSON document already written (sent as it is)."""


def _json(value: object) -> str | None:
    if value is None or isinstance(value, JsonText):
        return value
    if isinstance(value, BaseModel):
        return value.model_dump_json()
    return json.dumps(value)


def _array_literal(values: object) -> str:
    """A PostgreSQL array literal of strings (each quoted, backslash and quote escaped)."""
    assert isinstance(values, list | tuple), "an array column takes a list of strings"
    quoted = ('"' + str(v).replace("\\", "\\\\").replace('"', '\\"') + '"' for v in values)
    return "{" + ",".join(quoted) + "}"


class _Column:
    """One column's name, its SQL type, how its values are sent (an array of which type) and read."""

    def __init__(self, column: Column[Any]) -> None:
        self.name = f'"{column.name}"'
        self.convert: Callable[[object], str | None] | None
        sql_type = column.type.compile(dialect=_DIALECT)
        if _is(column, JSONB):
            self.sent, self.read, self.convert = "text", f"::{sql_type}", _json
        elif _is(column, ARRAY):
            self.sent, self.read, self.convert = "text", f"::{sql_type}", _array_literal
        else:
            self.sent, self.read, self.convert = sql_type, "", None

    def values(self, rows: Sequence[Mapping[str, object]], key: str) -> list[object]:
        convert = self.convert
        if convert is None:
            return [row[key] for row in rows]
        return [None if row[key] is None else convert(row[key]) for row in rows]


def _columns(model: type, keys: Sequence[str]) -> list[_Column]:
    mapper: Mapper[Any] = inspect(model)
    return [_Column(mapper.attrs[key].columns[0]) for key in keys]


def _columns_table(model: type) -> str:
    mapper: Mapper[Any] = inspect(model)
    return str(mapper.local_table.name)  # type: ignore[attr-defined]  # a Table here


async def insert_rows(
    session: AsyncSession,
    model: type,
    rows: Sequence[Mapping[str, object]],
    *,
    conflict: Sequence[str],
    update: Sequence[str] = (),
    returning: Sequence[str] = (),
) -> list[tuple[Any, ...]]:
    """Insert ``rows`` into ``model``'s table in one statement (see the module's rules)."""
    if not rows:
        return []
    keys = list(rows[0])
    columns = _columns(model, keys)
    names = ", ".join(c.name for c in columns)
    arrays = ", ".join(f"${i}::{c.sent}[]" for i, c in enumerate(columns, start=1))
    selected = ", ".join(f"u.{c.name}{c.read}" for c in columns)
    quoted = ", ".join(f'"{col}"' for col in conflict)
    table = _columns_table(model)
    action = (
        "DO UPDATE SET " + ", ".join(f'"{col}" = EXCLUDED."{col}"' for col in update)
        if update
        else "DO NOTHING"
    )
    sql = (
        f"INSERT INTO {table} ({names}) SELECT {selected} FROM unnest({arrays}) AS u({names}) "
        f"ON CONFLICT ({quoted}) {action}"
    )
    if returning:
        sql += " RETURNING " + ", ".join(returning)
    params = [c.values(rows, key) for c, key in zip(columns, keys, strict=True)]
    connection = await (await session.connection()).get_raw_connection()
    driver = connection.driver_connection
    assert driver is not None, "the session's connection is open"
    if returning:
        return [tuple(record) for record in await driver.fetch(sql, *params)]
    await driver.execute(sql, *params)
    return []
