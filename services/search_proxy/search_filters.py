"""The ``filters`` of a :class:`SearchRequest`, validated (unknown keys are an error, not ignored)."""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator


class InvalidFilters(ValueError):
    """``SearchRequest.filters`` has an unknown key or a value of the wrong type."""


class SearchFilters(BaseModel):
    model_config = ConfigDict(extra="forbid")

    source_type: list[str] | None = Field(
        default=None, description="github_push | github_pr | sentry_error (one or a list)"
    )
    actor: str | None = Field(default=None, description="Case-insensitive substring of the actor")
    since: datetime | None = Field(default=None, description="occurred_at >= since")
    until: datetime | None = Field(default=None, description="occurred_at <= until")

    @field_validator("source_type", mode="before")
    @classmethod
    def _one_or_many(cls, value: object) -> object:
        return [value] if isinstance(value, str) else value


def parse_filters(raw: dict[str, object]) -> SearchFilters:
    try:
        return SearchFilters.model_validate(raw)
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in exc.errors())
        raise InvalidFilters(
            f"invalid search filters ({problems}); allowed keys: source_type, actor, since, until"
        ) from exc
