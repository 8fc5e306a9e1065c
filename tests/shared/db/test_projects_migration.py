"""Migration 0010 (projects): what existed moves into ``default``; names are unique per project;
down to 0009 and up again, and the downgrade refuses while another project holds data."""

from __future__ import annotations

import psycopg
import pytest
from alembic import command

from shared.db.migrate import alembic_config
from shared.db.session import plain_url

pytestmark = pytest.mark.integration


def _execute(url: str, sql: str, params: tuple[object, ...] = ()) -> list[tuple[object, ...]]:
    with psycopg.connect(plain_url(url)) as conn:
        cursor = conn.execute(sql, params)
        return cursor.fetchall() if cursor.description else []


def _dataset(url: str, dataset_id: str, name: str, project: str | None) -> None:
    columns, values = "id, name, description, kind, created_at", "%s, %s, '', 'generic', now()"
    params: tuple[object, ...] = (dataset_id, name)
    if project is not None:
        columns, values, params = columns + ", project_id", values + ", %s", (*params, project)
    _execute(url, f"INSERT INTO datasets ({columns}) VALUES ({values})", params)


def _label(url: str, project: str | None) -> None:
    columns, values = "name, label, version, updated_at", "'p', 'production', 1, now()"
    if project is not None:
        columns, values = columns + ", project_id", values + f", '{project}'"
    _execute(url, f"INSERT INTO prompt_labels ({columns}) VALUES ({values})")


def test_0010_moves_everything_into_default_and_scopes_names(database_url: str) -> None:
    command.downgrade(alembic_config(database_url), "0009")
    _dataset(database_url, "d1", "orders", None)
    _execute(
        database_url,
        "INSERT INTO sampling_config (id, rate, filters, evaluators, updated_at) "
        "VALUES (1, 0.5, '{}', '[]', now())",
    )
    _label(database_url, None)
    command.upgrade(alembic_config(database_url), "0010")

    assert _execute(database_url, "SELECT project_id FROM datasets") == [("default",)]
    assert _execute(database_url, "SELECT project_id, rate FROM sampling_config") == [("default", 0.5)]
    assert _execute(database_url, "SELECT project_id FROM prompt_labels") == [("default",)]
    _execute(database_url, "INSERT INTO projects (id) VALUES ('team-b')")
    _dataset(database_url, "d2", "orders", "team-b")  # the same names in another project …
    _label(database_url, "team-b")
    with pytest.raises(psycopg.errors.UniqueViolation):  # … never twice in one
        _dataset(database_url, "d3", "orders", "team-b")
    with pytest.raises(psycopg.errors.NotNullViolation):  # a new row must say its project
        _dataset(database_url, "d4", "x", None)
    with pytest.raises(psycopg.errors.CheckViolation):
        _execute(database_url, "INSERT INTO projects (id) VALUES ('Not A Slug')")

    with pytest.raises(RuntimeError, match="belong to projects other than 'default'"):
        command.downgrade(alembic_config(database_url), "0009")
    _execute(database_url, "DELETE FROM datasets WHERE project_id = 'team-b'")
    _execute(database_url, "DELETE FROM prompt_labels WHERE project_id = 'team-b'")
    command.downgrade(alembic_config(database_url), "0009")
    assert _execute(database_url, "SELECT id, name FROM datasets") == [("d1", "orders")]
    assert _execute(database_url, "SELECT id, rate FROM sampling_config") == [(1, 0.5)]
    command.upgrade(alembic_config(database_url), "head")
