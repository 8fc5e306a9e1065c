"""One-time sign-in links into the web UI: stored as SHA-256 hashes, spent atomically on first use."""

from __future__ import annotations

import hashlib
import secrets
from datetime import UTC, datetime, timedelta

from sqlalchemy import update
from sqlalchemy.ext.asyncio import AsyncSession

from shared.db.models import UiSignInLink


def _hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


async def create_link(
    session: AsyncSession, key_id: str, path: str, valid_for: timedelta
) -> tuple[str, datetime]:
    """A new link's token (shown once) and when it expires."""
    token = secrets.token_urlsafe(32)
    expires_at = datetime.now(UTC) + valid_for
    session.add(UiSignInLink(token_hash=_hash(token), key_id=key_id, path=path, expires_at=expires_at))
    return token, expires_at


async def spend_link(session: AsyncSession, token: str) -> UiSignInLink | None:
    """The link, marked used; None when unknown, already used or expired. One UPDATE, so two
    simultaneous uses cannot both succeed."""
    now = datetime.now(UTC)
    stmt = (
        update(UiSignInLink)
        .where(
            UiSignInLink.token_hash == _hash(token),
            UiSignInLink.used_at.is_(None),
            UiSignInLink.expires_at > now,
        )
        .values(used_at=now)
        .returning(UiSignInLink)
    )
    return (await session.execute(stmt)).scalar_one_or_none()
