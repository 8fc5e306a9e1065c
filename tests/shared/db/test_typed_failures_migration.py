"""Migration 0023: the failure columns go down to 0022 and up again, and going up types every
stored error string (without assuming 0023 is the head)."""

from __future__ import annotations

import asyncio

import psycopg
import pytest
from alembic import command
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from shared.db.migrate import alembic_config
from shared.db.models import ExperimentItem, Score
from shared.db.session import plain_url
from tests.services.coordinator.experiments.store.experiment_rows import add_experiment
from tests.shared.db.schema_facts import table_columns

pytestmark = pytest.mark.integration

TABLES = ("experiment_items", "scores", "trace_scores")

ERRORS = {
    "target": ("TargetTimeout: agent took longer than 30s (gave up after 3 attempts)", "target"),
    "bare": ("TargetTimeout", "target"),
    "not-run": ("not run: budget exhausted (spent 3 USD)", "platform"),
    "untyped": ("the agent fell over", "target"),
}


async def _seed(sessions: async_sessionmaker[AsyncSession]) -> None:
    """An experiment with one error item per ``ERRORS`` entry and one failed score (error strings
    only, as the previous version wrote them)."""
    async with sessions() as session:
        experiment = await add_experiment(session, "x", len(ERRORS), status="completed")
        for position, (item_id, (error, _)) in enumerate(ERRORS.items()):
            session.add(
                ExperimentItem(
                    experiment_id=experiment.id,
                    item_id=item_id,
                    position=position,
                    status="error",
                    input={},
                    item_metadata={},
                    error=error,
                )
            )
        session.add(
            Score(experiment_id=experiment.id, item_id="target", name="judge", error="ValueError: no verdict")
        )
        await session.commit()


def _failures(url: str) -> tuple[dict[str, object], object]:
    with psycopg.connect(plain_url(url)) as conn:
        items = dict(conn.execute("SELECT item_id, failure FROM experiment_items").fetchall())
        score = conn.execute("SELECT failure FROM scores").fetchone()
    assert score is not None
    return items, score[0]


async def test_0023_types_the_stored_errors_and_goes_down_and_up(
    database_url: str, session_factory: async_sessionmaker[AsyncSession]
) -> None:
    config = alembic_config(database_url)
    await _seed(session_factory)
    await asyncio.to_thread(command.downgrade, config, "0022")
    assert all("failure" not in table_columns(database_url, t) for t in TABLES)
    await asyncio.to_thread(command.upgrade, config, "0023")
    assert all("failure" in table_columns(database_url, t) for t in TABLES)
    items, score = _failures(database_url)
    assert items["target"] == {
        "source": "target",
        "type": "TargetTimeout",
        "message": "agent took longer than 30s (gave up after 3 attempts)",
        "traceback": "",
    }
    assert items["bare"] == {"source": "target", "type": "TargetTimeout", "message": "", "traceback": ""}
    assert items["not-run"] == {
        "source": "platform",
        "type": "not run",
        "message": "budget exhausted (spent 3 USD)",
        "traceback": "",
    }
    assert items["untyped"] == {
        "source": "target",
        "type": "Error",
        "message": "the agent fell over",
        "traceback": "",
    }
    assert score == {
        "source": "evaluator",
        "type": "ValueError",
        "message": "no verdict",
        "traceback": "",
        "evaluator": "judge",
    }
    await asyncio.to_thread(command.downgrade, config, "0022")
    assert all("failure" not in table_columns(database_url, t) for t in TABLES)
    await asyncio.to_thread(command.upgrade, config, "head")
