"""An experiment named by its id or its name (a web UI address), resolved as the CLI and the API do.

Rules: an id is kept (the experiment with that id); any other text is a name and means the newest
run of that name (``list_experiments``, the API's ``?name=`` listing); where a completed run is wanted
(comparing), the newest completed run of that name (``latest_completed_named``, what the API does
with ``baseline_name``), else the newest run of any status so the page can say why it cannot compare
yet. Nothing found is a 404 naming what was looked for and where experiments are listed."""

from __future__ import annotations

from sqlalchemy.ext.asyncio import AsyncSession

from services.coordinator.errors import ExperimentNotFound
from services.coordinator.experiments.store import experiments as experiment_store
from shared.db.models import Experiment


async def experiment_by_ref(session: AsyncSession, ref: str, *, completed: bool = False) -> Experiment:
    """The experiment ``ref`` names (an id, or a name: its newest run, the newest completed one first
    with ``completed``); ExperimentNotFound (404) when there is none."""
    row = await session.get(Experiment, ref)
    if row is not None:
        return row
    if completed:
        found = await experiment_store.latest_completed_named(session, ref)
        if found is not None:
            return await experiment_store.get_experiment(session, found)
    newest = await experiment_store.list_experiments(session, ref, 1)
    if newest:
        return newest[0]
    raise ExperimentNotFound(
        f"No experiment has the id or name {ref!r} in this project. The Experiments page lists every run "
        "(in a terminal: yardstick experiments list)."
    )
