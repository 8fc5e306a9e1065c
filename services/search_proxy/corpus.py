"""The retrieval corpus file (``datasets/search/corpus-v*.json``): GitHub pushes, pull requests and
Sentry-style errors, each flattened into one :class:`CorpusDocument` for indexing."""

from __future__ import annotations

import hashlib
import json
from datetime import datetime
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator


class CorpusFileError(ValueError):
    """The corpus file is missing, not JSON, or does not match the corpus schema."""


class _Event(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    id: str = Field(pattern=r"^(push|pr|error):[a-z0-9][a-z0-9-]*$", description="Stable id, e.g. push:x")
    references: list[str] = Field(default_factory=list, description="Ids of related events")


class PushEvent(_Event):
    type: Literal["github_push"]
    repo: str
    author: str = Field(description="Author e-mail")
    branch: str
    message: str = Field(description="Commit message")
    files: list[str]
    timestamp: datetime


class PullRequestEvent(_Event):
    type: Literal["github_pr"]
    repo: str
    number: int = Field(ge=1)
    author: str
    state: Literal["open", "merged", "closed"]
    title: str
    body: str
    labels: list[str]
    timestamp: datetime


class ErrorEvent(_Event):
    type: Literal["sentry_error"]
    project: str
    level: Literal["debug", "info", "warning", "error", "fatal"]
    status: Literal["unresolved", "resolved", "ignored"]
    message: str
    culprit: str
    count: int = Field(ge=0)
    first_seen: datetime = Field(alias="firstSeen")
    last_seen: datetime = Field(alias="lastSeen")
    assignee: str | None = None


CorpusEvent = Annotated[PushEvent | PullRequestEvent | ErrorEvent, Field(discriminator="type")]


class CorpusDocument(BaseModel):
    """One indexable row of ``search_documents``."""

    id: str
    source_type: str
    title: str
    body: str
    actor: str = Field(description="'Name <email>' of the author / assignee, '' if none")
    occurred_at: datetime
    metadata: dict[str, Any] = Field(default_factory=dict)


class Corpus(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    name: str
    version: str
    description: str = ""
    reference_time: datetime = Field(
        alias="referenceTime", description="The corpus's 'now': relative dates ('last week') resolve to it"
    )
    people: dict[str, str] = Field(default_factory=dict, description="e-mail -> display name")
    events: list[CorpusEvent] = Field(min_length=1)

    @model_validator(mode="after")
    def _ids_unique_and_references_resolve(self) -> Corpus:
        ids = [event.id for event in self.events]
        duplicates = sorted({i for i in ids if ids.count(i) > 1})
        if duplicates:
            raise ValueError(f"duplicate event ids: {duplicates}")
        known = set(ids)
        for event in self.events:
            missing = [ref for ref in event.references if ref not in known]
            if missing:
                raise ValueError(f"event {event.id} references unknown ids {missing}")
        return self

    @property
    def ids(self) -> set[str]:
        return {event.id for event in self.events}

    @property
    def corpus_version(self) -> str:
        """Content hash of the corpus (sha256 of its canonical JSON, first 16 hex digits)."""
        canonical = json.dumps(self.model_dump(mode="json", by_alias=True), sort_keys=True)
        return hashlib.sha256(canonical.encode()).hexdigest()[:16]

    def actor(self, email: str | None) -> str:
        if not email:
            return ""
        name = self.people.get(email)
        return f"{name} <{email}>" if name else email

    def documents(self) -> list[CorpusDocument]:
        return [self._document(event) for event in self.events]

    def _document(self, event: PushEvent | PullRequestEvent | ErrorEvent) -> CorpusDocument:
        refs = {"references": event.references}
        if isinstance(event, PushEvent):
            return CorpusDocument(
                id=event.id,
                source_type=event.type,
                title=event.message,
                body=(
                    f"Push to {event.repo} on branch {event.branch}. Files changed: {', '.join(event.files)}."
                ),
                actor=self.actor(event.author),
                occurred_at=event.timestamp,
                metadata={"repo": event.repo, "branch": event.branch, "files": event.files, **refs},
            )
        if isinstance(event, PullRequestEvent):
            return CorpusDocument(
                id=event.id,
                source_type=event.type,
                title=event.title,
                body=(
                    f"{event.body}\nPull request #{event.number} in {event.repo}, state {event.state}. "
                    f"Labels: {', '.join(event.labels)}."
                ),
                actor=self.actor(event.author),
                occurred_at=event.timestamp,
                metadata={"repo": event.repo, "number": event.number, "state": event.state, **refs},
            )
        return CorpusDocument(
            id=event.id,
            source_type=event.type,
            title=event.message,
            body=(
                f"{event.level.capitalize()} in {event.project} at {event.culprit}. "
                f"Seen {event.count} times between {event.first_seen:%Y-%m-%d %H:%M} and "
                f"{event.last_seen:%Y-%m-%d %H:%M} UTC. Status: {event.status}."
            ),
            actor=self.actor(event.assignee),
            occurred_at=event.first_seen,
            metadata={
                "project": event.project,
                "level": event.level,
                "status": event.status,
                "count": event.count,
                "last_seen": event.last_seen.isoformat(),
                **refs,
            },
        )


def load_corpus(path: Path) -> Corpus:
    """Read and validate a corpus file; errors name the file and the offending field."""
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError as exc:
        raise CorpusFileError(f"corpus file {path} does not exist: set SEARCH_CORPUS_PATH") from exc
    except json.JSONDecodeError as exc:
        raise CorpusFileError(f"corpus file {path} is not valid JSON: {exc}") from exc
    try:
        return Corpus.model_validate(raw)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in err['loc']) or '<root>'}: {err['msg']}" for err in exc.errors()
        )
        raise CorpusFileError(f"corpus file {path} is invalid: {problems}") from exc
