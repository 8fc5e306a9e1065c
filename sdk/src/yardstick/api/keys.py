"""HTTP bodies of ``/keys`` and the web UI's sign-in links: API keys, their roles and expiry."""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel, Field, field_validator

from yardstick.api.durations import parse_duration
from yardstick.api.roles import Role


class KeyOut(BaseModel):
    id: str
    name: str
    prefix: str = Field(description="The key's first characters, to recognise it")
    created_at: datetime
    last_used_at: datetime | None
    expires_at: datetime | None
    revoked_at: datetime | None
    active: bool
    role: Role = Field(description="What the key may do: owner, admin, runner, viewer or ingest")
    project: str = Field(description="The project the key acts in (an owner key: any project)")


class KeyCreate(BaseModel):
    """``POST /keys``: a new key, of a role no higher than the caller's."""

    name: str = Field(min_length=1, max_length=100, description="A label to recognise the key by")
    role: Role = Field(description="owner, admin, runner (CI), viewer (read only) or ingest (traffic only)")
    project: str | None = Field(
        default=None,
        max_length=64,
        description="The project the key acts in (default: the project of the request). Only an owner "
        "key may create keys for another project.",
    )
    expires_in: str | None = Field(
        default=None, max_length=20, description="Refuse the key after this long: 30d, 12h, 90m (None: never)"
    )

    @field_validator("expires_in")
    @classmethod
    def _duration(cls, value: str | None) -> str | None:
        if value is not None:
            parse_duration(value)  # InvalidDuration is a ValueError: a 422 naming the field
        return value


class KeyCreated(KeyOut):
    key: str = Field(description="The key itself: shown now and never again (it is stored as a keyed hash)")


class SignInLinkCreate(BaseModel):
    path: str = Field(
        default="/ui/experiments",
        max_length=2000,
        description="Where the link lands after signing in: a path inside the UI (/ui/...)",
    )

    @field_validator("path")
    @classmethod
    def _inside_ui(cls, value: str) -> str:
        if not (value == "/ui" or value.startswith("/ui/")) or "//" in value or "\\" in value:
            raise ValueError("must be a path inside the web UI, such as /ui/experiments")
        return value


class SignInLinkOut(BaseModel):
    url: str = Field(description="Path of the one-time link; prefix it with the coordinator's address")
    expires_at: datetime
