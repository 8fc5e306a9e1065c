"""Finalizer: when every item of an experiment is terminal, run the run-level evaluators, aggregate,
compare against the baseline, and mark it completed. Idempotent and resumable after a restart."""

from __future__ import annotations

import asyncio
import logging

from nats.aio.client import Client as NatsClient
from sqlalchemy import select, update
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from services.coordinator.aggregates import compute_aggregates
from services.coordinator.regression import ComparisonConfig, compare_runs
from services.coordinator.run_loader import load_run
from shared.contracts.evaluation import EvaluatorSpec
from shared.contracts.experiment_events import ExperimentEvent
from shared.contracts.topology import Topology
from shared.db.base import utcnow
from shared.db.models import Comparison, Experiment
from shared.evaluators import run_run_evaluators

log = logging.getLogger(__name__)


class Finalizer:
    def __init__(
        self,
        nc: NatsClient,
        topology: Topology,
        sessions: async_sessionmaker[AsyncSession],
        queue: asyncio.Queue[str],
    ) -> None:
        self.nc = nc
        self.topology = topology
        self.sessions = sessions
        self.queue = queue
        self._stopping = False

    def submit(self, experiment_id: str) -> None:
        self.queue.put_nowait(experiment_id)

    def stop(self) -> None:
        self._stopping = True

    async def resume_interrupted(self) -> None:
        async with self.sessions() as session:
            ids = (
                (
                    await session.execute(
                        select(Experiment.id).where(
                            (Experiment.status == "finalizing")
                            | ((Experiment.status == "running") & (Experiment.done >= Experiment.total))
                        )
                    )
                )
                .scalars()
                .all()
            )
        for experiment_id in ids:
            self.submit(experiment_id)

    async def run(self) -> None:
        while not self._stopping:
            experiment_id = await self.queue.get()
            try:
                await self.finalize(experiment_id)
            except Exception as exc:
                log.exception("finalizing %s failed", experiment_id)
                async with self.sessions() as session:
                    await session.execute(
                        update(Experiment)
                        .where(Experiment.id == experiment_id)
                        .values(status="failed", error=f"finalization failed: {type(exc).__name__}: {exc}")
                    )
                    await session.commit()
                await self._event(experiment_id, "failed")

    async def _claim(self, session: AsyncSession, experiment_id: str) -> Experiment | None:
        claimed = (
            await session.execute(
                update(Experiment)
                .where(
                    Experiment.id == experiment_id,
                    Experiment.status.in_(["running", "finalizing"]),
                    Experiment.done >= Experiment.total,
                )
                .values(status="finalizing")
                .returning(Experiment.id)
            )
        ).scalar_one_or_none()
        await session.commit()
        return await session.get(Experiment, experiment_id) if claimed else None

    async def finalize(self, experiment_id: str) -> None:
        async with self.sessions() as session:
            experiment = await self._claim(session, experiment_id)
            if experiment is None:
                return
            run, item_results = await load_run(session, experiment)
            specs = [EvaluatorSpec.model_validate(s) for s in experiment.config.get("run_evaluators", [])]
            run.run_scores = await run_run_evaluators(specs, item_results=item_results)
            threshold = float(experiment.config.get("pass_threshold", 0.5))
            aggregates = compute_aggregates(run, pass_threshold=threshold).model_dump(mode="json")
            if experiment.baseline_id:
                baseline = await session.get(Experiment, experiment.baseline_id)
                if baseline is not None:
                    baseline_run, _ = await load_run(session, baseline)
                    config = ComparisonConfig()
                    report = await asyncio.to_thread(compare_runs, baseline_run, run, config)
                    session.add(
                        Comparison(
                            baseline_id=baseline.id,
                            candidate_id=experiment.id,
                            config=config.model_dump(mode="json"),
                            report=report.model_dump(mode="json"),
                            regression=report.regression,
                        )
                    )
            experiment.aggregates = aggregates
            experiment.status = "completed"
            experiment.completed_at = utcnow()
            await session.commit()
        log.info("experiment completed", extra={"experiment_id": experiment_id})
        await self._event(experiment_id, "completed")

    async def _event(self, experiment_id: str, kind: str) -> None:
        async with self.sessions() as session:
            row = await session.get(Experiment, experiment_id)
            if row is None:
                return
            event = ExperimentEvent(
                experiment_id=experiment_id,
                kind=kind,
                status=row.status,  # type: ignore[arg-type]
                total=row.total,
                done=row.done,
                errors=row.errors,
            )
        await self.nc.publish(
            self.topology.experiment_events(experiment_id), event.model_dump_json().encode()
        )
