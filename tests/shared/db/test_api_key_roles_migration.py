"""Migration 0008 (api_keys.role): a key from before it, all-powerful then, becomes an owner key;
a role outside the five is refused; down to 0007 and up again."""

from __future__ import annotations

import psycopg
import pytest
from alembic import command

from shared.db.migrate import alembic_config
from shared.db.session import plain_url

pytestmark = pytest.mark.integration


def _insert(url: str, key_id: str, role: str | None) -> None:
    columns, values = "id, name, prefix, key_hash, created_at", "%s, 'k', 'ys_x', %s, now()"
    params: tuple[str, ...] = (key_id, f"hash-{key_id}")
    if role is not None:
        columns, values, params = columns + ", role", values + ", %s", (*params, role)
    with psycopg.connect(plain_url(url)) as conn:
        conn.execute(f"INSERT INTO api_keys ({columns}) VALUES ({values})", params)


def test_0008_old_keys_become_owners_and_roles_are_checked(database_url: str) -> None:
    command.downgrade(alembic_config(database_url), "0007")
    _insert(database_url, "old", None)  # no role column before 0008
    command.upgrade(alembic_config(database_url), "0008")
    with psycopg.connect(plain_url(database_url)) as conn:
        row = conn.execute("SELECT role FROM api_keys WHERE id = 'old'").fetchone()
    assert row == ("owner",)
    _insert(database_url, "ci", "runner")
    with pytest.raises(psycopg.errors.CheckViolation):
        _insert(database_url, "bad", "superuser")
    with pytest.raises(psycopg.errors.NotNullViolation):
        _insert(database_url, "none", None)  # a new key must say its role
