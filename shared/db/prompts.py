"""The prompt registry in Postgres: versions that never change and labels that move, per project.

Used by the coordinator (push, list, label) and the agent (resolve a reference at call time), both
with a session scoped to the project (``shared.db.project_scope``): every query here sees that
project's prompts only, and a session without a project is refused.
"""

from __future__ import annotations

import hashlib

from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession

from shared.db.base import utcnow
from shared.db.models import PromptLabel, PromptVersion
from shared.db.project_scope import session_project
from yardstick.api.prompts import PromptPush, PromptRef, PromptSummary, PromptVersionOut


def _hash(template: str) -> str:
    return hashlib.sha256(template.encode()).hexdigest()


async def _labels_of(session: AsyncSession, name: str) -> dict[str, int]:
    rows = await session.execute(
        select(PromptLabel.label, PromptLabel.version).where(PromptLabel.name == name)
    )
    return {label: version for label, version in rows.all()}


async def version_out(session: AsyncSession, row: PromptVersion, created: bool = False) -> PromptVersionOut:
    labels = await _labels_of(session, row.name)
    return PromptVersionOut(
        name=row.name,
        version=row.version,
        labels=sorted(label for label, version in labels.items() if version == row.version),
        template=row.template,
        source=row.source,
        created_at=row.created_at,
        created_new_version=created,
    )


async def latest(session: AsyncSession, name: str) -> PromptVersion | None:
    stmt = (
        select(PromptVersion)
        .where(PromptVersion.name == name)
        .order_by(PromptVersion.version.desc())
        .limit(1)
    )
    return (await session.execute(stmt)).scalar_one_or_none()


async def push_prompt(session: AsyncSession, body: PromptPush) -> PromptVersionOut:
    """A new version unless the template equals the latest one; then the labels move to it."""
    current = await latest(session, body.name)
    created = current is None or current.content_hash != _hash(body.template)
    row = current
    if created:
        row = PromptVersion(
            name=body.name,
            version=(current.version + 1) if current else 1,
            template=body.template,
            content_hash=_hash(body.template),
            source=body.source,
        )
        session.add(row)
        await session.flush()
    assert row is not None
    for label in body.labels:
        await set_label(session, body.name, label, row.version)
    return await version_out(session, row, created)


async def _label(session: AsyncSession, name: str, label: str) -> PromptLabel | None:
    if session_project(session) is None:
        raise RuntimeError("the prompt registry needs a session scoped to a project")
    stmt = select(PromptLabel).where(PromptLabel.name == name, PromptLabel.label == label)
    return (await session.execute(stmt)).scalar_one_or_none()


async def set_label(session: AsyncSession, name: str, label: str, version: int) -> PromptLabel:
    """Point ``label`` at ``version`` (which must exist); callers check existence first."""
    row = await _label(session, name, label)
    if row is None:
        row = PromptLabel(name=name, label=label, version=version)
        session.add(row)
    else:
        row.version = version
        row.updated_at = utcnow()
    await session.flush()
    return row


async def resolve(session: AsyncSession, ref: PromptRef) -> PromptVersion | None:
    """The version ``ref`` names now, or None."""
    version = ref.version
    if version is None:
        label = await _label(session, ref.name, ref.selector)
        if label is None:
            return None
        version = label.version
    stmt = select(PromptVersion).where(PromptVersion.name == ref.name, PromptVersion.version == version)
    return (await session.execute(stmt)).scalar_one_or_none()


async def list_prompts(session: AsyncSession) -> list[PromptSummary]:
    rows = await session.execute(
        select(PromptVersion.name, func.max(PromptVersion.version))
        .group_by(PromptVersion.name)
        .order_by(PromptVersion.name)
    )
    return [
        PromptSummary(name=name, latest_version=top, labels=await _labels_of(session, name))
        for name, top in rows.all()
    ]


async def versions(session: AsyncSession, name: str) -> list[PromptVersion]:
    stmt = select(PromptVersion).where(PromptVersion.name == name).order_by(PromptVersion.version)
    return list((await session.execute(stmt)).scalars())
