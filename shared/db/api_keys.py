"""API keys: shown once, stored as HMAC-SHA256 keyed hashes (the secret lives in the settings).

The coordinator verifies them; the CLI and the stack launcher create them.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from datetime import UTC, datetime, timedelta

import psycopg
from sqlalchemy import select, update
from sqlalchemy.ext.asyncio import AsyncSession

from shared.db.base import new_uuid
from shared.db.models import ApiKey
from shared.db.session import plain_url
from yardstick.api.audit import AuditAction, AuditChange
from yardstick.api.projects import DEFAULT_PROJECT
from yardstick.api.roles import Role

KEY_PREFIX = "ys_"
LAST_USED_RESOLUTION = timedelta(minutes=1)
"""``last_used_at`` is written at most this often per key: a client polling ten times a second
would otherwise cost a write and a commit per request."""


def new_key() -> str:
    return KEY_PREFIX + secrets.token_urlsafe(32)


def key_hash(key: str, secret: str) -> str:
    return hmac.new(secret.encode(), key.encode(), hashlib.sha256).hexdigest()


class UnknownProject(LookupError):
    """A key was asked for in a project that does not exist."""


def create_key_sync(
    database_url: str,
    secret: str,
    name: str,
    role: Role,
    expires_at: datetime | None = None,
    project: str = DEFAULT_PROJECT,
) -> str:
    """Create a key on the database directly (the launcher's owner key, and `yardstick keys create` on
    the stack's machine); returns it, once."""
    key, key_id, now = new_key(), new_uuid(), datetime.now(UTC)
    change = AuditChange(after={"name": name, "prefix": key[:10], "role": role.value, "project": project})
    with psycopg.connect(plain_url(database_url)) as conn:  # one transaction: the key and its audit row
        if conn.execute("SELECT 1 FROM projects WHERE id = %s", (project,)).fetchone() is None:
            raise UnknownProject(f"no project {project!r}: create it first (yardstick projects create)")
        conn.execute(
            "INSERT INTO api_keys (id, name, prefix, key_hash, created_at, expires_at, role, project_id) "
            "VALUES (%s, %s, %s, %s, %s, %s, %s, %s)",
            (key_id, name, key[:10], key_hash(key, secret), now, expires_at, role.value, project),
        )
        conn.execute(
            "INSERT INTO audit_events (at, key_id, key_name, key_prefix, action, object_kind, object_id, "
            "change, project_id) "
            "VALUES (%s, NULL, 'database (yardstick keys create)', '-', %s, 'key', %s, %s, %s)",
            (now, AuditAction.KEY_CREATE.value, key_id, change.model_dump_json(), project),
        )
    return key


async def create_key(
    session: AsyncSession,
    secret: str,
    name: str,
    role: Role,
    project: str,
    expires_at: datetime | None = None,
) -> tuple[ApiKey, str]:
    """Create a key through the API (``POST /keys``); returns the row and the key, shown once."""
    key = new_key()
    row = ApiKey(
        name=name,
        prefix=key[:10],
        key_hash=key_hash(key, secret),
        role=role,
        expires_at=expires_at,
        project_id=project,
    )
    session.add(row)
    await session.flush()
    return row, key


async def list_keys(session: AsyncSession) -> list[ApiKey]:
    """Every key, newest first (revoked and expired ones included: they say so)."""
    return list((await session.execute(select(ApiKey).order_by(ApiKey.created_at.desc()))).scalars())


async def revoke_key(session: AsyncSession, ref: str) -> ApiKey | None:
    """Revoke the key with id or prefix ``ref``; None when no key matches exactly one."""
    rows = list(
        (await session.execute(select(ApiKey).where((ApiKey.id == ref) | (ApiKey.prefix == ref)))).scalars()
    )
    if len(rows) != 1:
        return None
    if rows[0].revoked_at is None:
        rows[0].revoked_at = datetime.now(UTC)
    return rows[0]


async def verify_key(session: AsyncSession, secret: str, key: str) -> ApiKey | None:
    """The active key row for ``key``, or None. Constant-time by construction (hash lookup)."""
    digest = key_hash(key, secret)
    now = datetime.now(UTC)
    row = (
        await session.execute(
            select(ApiKey).where(
                ApiKey.key_hash == digest,
                ApiKey.revoked_at.is_(None),
                (ApiKey.expires_at.is_(None)) | (ApiKey.expires_at > now),
            )
        )
    ).scalar_one_or_none()
    if row is not None and (row.last_used_at is None or now - row.last_used_at >= LAST_USED_RESOLUTION):
        await session.execute(update(ApiKey).where(ApiKey.id == row.id).values(last_used_at=now))
        await session.commit()
    return row
