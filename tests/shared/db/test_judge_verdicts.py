"""The judge cache in PostgreSQL: per project (one never reads another's verdicts), first verdict
kept on a repeated write; migration 0013 (also the budget_exhausted status) goes down to 0011 and
up again."""

from __future__ import annotations

import uuid

import psycopg
import pytest
from alembic import command
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from shared.db.judge_verdicts import ProjectVerdicts
from shared.db.migrate import alembic_config, current_revision, head_revision
from shared.db.models import Project
from shared.db.session import plain_url
from yardstick.api.evaluation import Evaluation

pytestmark = pytest.mark.integration

KEY = "a" * 64


async def test_a_project_reads_only_its_own_verdicts(
    session_factory: async_sessionmaker[AsyncSession],
) -> None:
    async with session_factory() as session:
        session.add(Project(id="other"))
        await session.commit()
    default = ProjectVerdicts(session_factory, "default")
    other = ProjectVerdicts(session_factory, "other")
    verdict = Evaluation(name="llm_rubric", value=0.75, comment="fine", metadata={"judge_model": "m"})
    await default.put(KEY, "llm_rubric", verdict)
    assert await default.get(KEY) == verdict
    assert await other.get(KEY) is None
    await default.put(KEY, "llm_rubric", verdict.model_copy(update={"value": 0.0}))  # a racing writer
    assert await default.get(KEY) == verdict, "the first verdict stays"
    await other.put(KEY, "llm_rubric", verdict.model_copy(update={"value": 0.5}))
    found = await other.get(KEY)
    assert found is not None and found.value == 0.5
    assert (await default.get(KEY)) == verdict


def _columns(url: str, table: str) -> set[str]:
    with psycopg.connect(plain_url(url)) as conn:
        rows = conn.execute(
            "SELECT column_name FROM information_schema.columns WHERE table_name = %s", (table,)
        ).fetchall()
    return {r[0] for r in rows}


def test_0013_downgrades_and_upgrades(database_url: str) -> None:
    assert head_revision() == current_revision(database_url)
    assert {"project_id", "key", "judge", "verdict", "created_at"} == _columns(database_url, "judge_cache")
    command.downgrade(alembic_config(database_url), "0012")
    assert not _columns(database_url, "judge_cache")
    assert "judge_cache_hits" not in _columns(database_url, "experiments")
    command.upgrade(alembic_config(database_url), "0013")
    assert "judge_cache_hits" in _columns(database_url, "experiments")
    assert "verdict" in _columns(database_url, "judge_cache")


def _insert(url: str, status: str) -> None:
    with psycopg.connect(plain_url(url)) as conn:
        conn.execute(
            "INSERT INTO datasets (id, name, description, kind, created_at, project_id) "
            "VALUES ('d1', 'd', '', 'generic', now(), 'default') ON CONFLICT DO NOTHING"
        )
        conn.execute(
            "INSERT INTO dataset_versions (id, dataset_id, version, content_hash, item_count, source, "
            "created_at) VALUES ('v1', 'd1', 1, 'x', 0, 't', now()) ON CONFLICT DO NOTHING"
        )
        conn.execute(
            "INSERT INTO experiments (id, name, dataset_id, version_id, status, config, total, done, "
            "errors, cache_hits, created_at, project_id) "
            "VALUES (%s, 'e', 'd1', 'v1', %s, '{}', 0, 0, 0, 0, now(), 'default')",
            (f"e-{status}-{uuid.uuid4().hex[:6]}", status),
        )


def _statuses(url: str) -> list[str]:
    with psycopg.connect(plain_url(url)) as conn:
        return [r[0] for r in conn.execute("SELECT status FROM experiments ORDER BY id").fetchall()]


def test_0013_allows_budget_exhausted_and_downgrades_it_to_completed(database_url: str) -> None:
    _insert(database_url, "budget_exhausted")  # the head's constraint has it
    with pytest.raises(psycopg.errors.CheckViolation):
        _insert(database_url, "bogus")
    command.downgrade(alembic_config(database_url), "0011")
    assert _statuses(database_url) == ["completed"]
    with pytest.raises(psycopg.errors.CheckViolation):
        _insert(database_url, "budget_exhausted")
    command.upgrade(alembic_config(database_url), "0013")
    assert "budget_exhausted_at" in _columns(database_url, "experiments")
    _insert(database_url, "budget_exhausted")
