"""Project isolation, enforced once for every query instead of at every call site.

A session scoped to a project (:func:`scope_to_project`, done by the coordinator for each request
from the caller's key) sees only that project's rows of every :class:`ProjectOwned` class: every
ORM SELECT, UPDATE and DELETE gets ``project_id = :project`` added (SQLAlchemy's global criteria,
``with_loader_criteria``), including ``session.get`` and column selects such as
``select(Experiment.id)``. Another project's id therefore reads as *not found* (a 404, never a 403
that would confirm it exists), and a route written tomorrow is isolated without remembering to be.

New ``ProjectOwned`` rows added to a scoped session take its project; a row naming another project
is refused at flush. Rows reached only through a parent (a dataset's versions and items, an
experiment's items and scores) carry no project of their own: routes reach them through the parent,
loaded first under the scope.

Background work (the dispatcher, collector, finalizer and sampler) uses unscoped sessions and says
which project a row belongs to explicitly. Raw ``text()`` SQL is not covered: none is used on
project-owned tables.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import event
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import ORMExecuteState, Session, with_loader_criteria

from shared.db.models import ProjectOwned

_KEY = "project_id"


class CrossProjectWrite(RuntimeError):
    """A row of one project was added to a session scoped to another (a programming error)."""


def scope_to_project(session: AsyncSession | Session, project_id: str) -> None:
    """From now on ``session`` reads and writes ``project_id``'s rows only."""
    session.info[_KEY] = project_id


def session_project(session: AsyncSession | Session) -> str | None:
    """The project ``session`` is scoped to; None for an unscoped (background) session."""
    value = session.info.get(_KEY)
    return value if isinstance(value, str) else None


@event.listens_for(Session, "do_orm_execute")
def _only_this_project(state: ORMExecuteState) -> None:
    project = state.session.info.get(_KEY)
    if project is None or state.is_column_load or state.is_relationship_load:
        return
    if state.is_select or state.is_update or state.is_delete:
        state.statement = state.statement.options(
            with_loader_criteria(
                ProjectOwned,
                lambda cls: cls.project_id == project,
                include_aliases=True,
            )
        )


@event.listens_for(Session, "before_flush")
def _new_rows_join_this_project(session: Session, _context: Any, _instances: Any) -> None:
    project = session.info.get(_KEY)
    if project is None:
        return
    for row in session.new:
        if not isinstance(row, ProjectOwned):
            continue
        if row.project_id is None:
            row.project_id = project
        elif row.project_id != project:
            raise CrossProjectWrite(
                f"{type(row).__name__} of project {row.project_id!r} added to a session of {project!r}"
            )
