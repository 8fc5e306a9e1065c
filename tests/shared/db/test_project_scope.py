"""A session scoped to a project reads, updates and deletes only that project's rows, whatever the
query's form, and new rows join its project; an unscoped session sees every project."""

from __future__ import annotations

import pytest
from sqlalchemy import delete, func, select, update
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from shared.db.models import Dataset, Project
from shared.db.project_scope import CrossProjectWrite, scope_to_project

pytestmark = pytest.mark.integration


async def _two_projects(sessions: async_sessionmaker[AsyncSession]) -> tuple[str, str]:
    async with sessions() as session:
        session.add_all([Project(id="alpha"), Project(id="beta")])
        await session.flush()
        a = Dataset(project_id="alpha", name="shared-name")
        b = Dataset(project_id="beta", name="shared-name")
        session.add_all([a, b])
        await session.commit()
        return a.id, b.id


async def test_a_scoped_session_sees_only_its_project(
    session_factory: async_sessionmaker[AsyncSession],
) -> None:
    alpha_id, beta_id = await _two_projects(session_factory)
    async with session_factory() as session:
        scope_to_project(session, "alpha")
        assert await session.get(Dataset, beta_id) is None
        assert (await session.get(Dataset, alpha_id)) is not None
        assert (await session.scalars(select(Dataset.id))).all() == [alpha_id]
        assert await session.scalar(select(func.count()).select_from(Dataset)) == 1
        await session.execute(update(Dataset).values(description="touched"))
        await session.execute(delete(Dataset).where(Dataset.id == beta_id))
        await session.commit()
    async with session_factory() as session:  # unscoped: both, beta untouched
        rows = {row.id: row.description for row in await session.scalars(select(Dataset))}
    assert rows == {alpha_id: "touched", beta_id: ""}


async def test_new_rows_join_the_session_project_and_others_are_refused(
    session_factory: async_sessionmaker[AsyncSession],
) -> None:
    await _two_projects(session_factory)
    async with session_factory() as session:
        scope_to_project(session, "beta")
        row = Dataset(name="new")
        session.add(row)
        await session.flush()
        assert row.project_id == "beta"
        session.add(Dataset(project_id="alpha", name="sneaky"))
        with pytest.raises(CrossProjectWrite):
            await session.flush()
