"""Who may send traffic: an active API key whose role grants ``ingest``, and its project.

The key comes as ``Authorization: Bearer <key>`` (OTLP exporters, gRPC metadata included) or as
the password of HTTP Basic auth, ``Basic base64(<anything>:<key>)``: the Langfuse SDKs send their
public key as the user name and their secret key as the password, so a Langfuse user sets the
secret key to a Yardstick ingest key (the user name is not checked).

Keys are verified against PostgreSQL (``shared.db.api_keys.verify_key``). A verified key is then
trusted for ``cache_s`` seconds without asking again (by its HMAC digest, never the key itself):
an exporter sends many requests a second, and a revoked key stops working within ``cache_s``.
Requests with the same key that arrive together wait for one lookup (a burst of exports after a
restart asks PostgreSQL once, not once per request). PostgreSQL not answering for a key not in
the cache is 503 (retry), not 401.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import time

from pydantic import BaseModel, Field
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from services.ingest.errors import Forbidden, Unauthorized, Unavailable
from shared.db.api_keys import key_hash, verify_key
from shared.db.models import ApiKey
from yardstick.api.roles import Role


def ingest_project(key_row: ApiKey) -> str:
    """The project the key's traffic belongs to: the key's own (an ingest key sends to one project)."""
    return key_row.project_id


class Caller(BaseModel, frozen=True):
    key_id: str
    role: Role
    project_id: str = Field(description="Where the spans this key sends belong")


MISSING_KEY = (
    "missing API key: send 'Authorization: Bearer <key>' (OTEL_EXPORTER_OTLP_HEADERS="
    "Authorization=Bearer%20<key>) or Basic auth with the key as password (a Langfuse SDK: "
    "LANGFUSE_SECRET_KEY=<key>); create one: yardstick keys create --role ingest"
)


def presented_key(authorization: str | None) -> str:
    """The key in an ``Authorization`` value: Bearer, or Basic's password; 401 otherwise."""
    scheme, _, credentials = (authorization or "").strip().partition(" ")
    credentials = credentials.strip()
    if scheme.lower() == "bearer" and credentials:
        return credentials
    if scheme.lower() == "basic" and credentials:
        try:
            decoded = base64.b64decode(credentials, validate=True).decode()
        except (binascii.Error, UnicodeDecodeError) as exc:
            raise Unauthorized(f"the Basic credentials are not base64 of 'user:key': {MISSING_KEY}") from exc
        _, colon, password = decoded.partition(":")
        if colon and password.strip():
            return password.strip()
        raise Unauthorized(f"the Basic credentials carry no password (the ingest key): {MISSING_KEY}")
    raise Unauthorized(MISSING_KEY)


class KeyChecker:
    def __init__(
        self, sessions: async_sessionmaker[AsyncSession], secret: str, cache_s: float = 10.0
    ) -> None:
        self._sessions = sessions
        self._secret = secret
        self._cache_s = cache_s
        self._cache: dict[str, tuple[float, Caller]] = {}
        self._pending: dict[str, asyncio.Future[Caller | None]] = {}

    async def caller(self, authorization: str | None) -> Caller:
        """The caller behind an ``Authorization`` header, if it may send traffic."""
        caller = await self._verified(presented_key(authorization))
        if not caller.role.grants(Role.INGEST):
            raise Forbidden(
                f"this is a {caller.role} key and sending traffic needs the ingest role "
                "(or admin/owner): create one with yardstick keys create --role ingest"
            )
        return caller

    async def _verified(self, key: str) -> Caller:
        digest = key_hash(key, self._secret)
        now = time.monotonic()
        cached = self._cache.get(digest)
        if cached is not None and cached[0] > now:
            return cached[1]
        pending = self._pending.get(digest)
        if pending is None:
            pending = asyncio.ensure_future(self._lookup(key))
            self._pending[digest] = pending
            pending.add_done_callback(lambda _: self._pending.pop(digest, None))
        caller = await asyncio.shield(pending)
        if caller is None:
            raise Unauthorized("invalid, expired or revoked API key: create one with yardstick keys create")
        if self._cache_s > 0:
            self._cache = {d: v for d, v in self._cache.items() if v[0] > now}  # no unbounded growth
            self._cache[digest] = (now + self._cache_s, caller)
        return caller

    async def _lookup(self, key: str) -> Caller | None:
        try:
            async with self._sessions() as session:
                row = await verify_key(session, self._secret, key)
        except Exception as exc:  # any driver error: the key cannot be checked now
            raise Unavailable(
                f"cannot check the API key, PostgreSQL is not answering ({type(exc).__name__}): "
                "retry after the Retry-After delay"
            ) from exc
        return None if row is None else Caller(key_id=row.id, role=row.role, project_id=ingest_project(row))
