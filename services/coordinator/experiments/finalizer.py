"""Finalizer: when every item of an experiment is terminal, run the run-level evaluators, aggregate,
compare against the baseline, and mark it completed (its status changes are ``lifecycle``'s). An
interleaved run waits until its baseline, the run beside it, is finished too.
Idempotent and resumable after a restart. Its memory does not grow with the item count
(``run_analysis``: compact columns, one metric at a time)."""

from __future__ import annotations

import asyncio
import logging

from nats.aio.client import Client as NatsClient
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from services.coordinator.comparisons.analysis import compare_experiments
from services.coordinator.experiments.aggregation import analyse_experiment
from services.coordinator.experiments.events import publish_event
from services.coordinator.experiments.lifecycle import (
    awaiting_finalization,
    claim_for_finalizing,
    complete,
    fail_finalization,
)
from services.coordinator.experiments.store.interleaving import interleaved_dependents, waits_for_twin
from services.coordinator.experiments.store.output_cache import store_outputs
from services.coordinator.experiments.store.run_columns import refresh_statistics
from services.coordinator.experiments.store.spend import recorded_spend
from shared.analysis import policy_for
from shared.db.models import Comparison, Experiment
from shared.evaluators import EvaluatorRegistry
from shared.evaluators.loading import process_registry
from shared.llm.prices import configured_prices
from yardstick.api.comparison_config import ComparisonConfig
from yardstick.api.experiment_events import EventKind
from yardstick.api.experiment_status import ExperimentStatus
from yardstick.api.topology import Topology

log = logging.getLogger(__name__)


class Finalizer:
    def __init__(
        self,
        nc: NatsClient,
        topology: Topology,
        sessions: async_sessionmaker[AsyncSession],
        registry: EvaluatorRegistry | None = None,
    ) -> None:
        self.registry = registry or process_registry()
        self.nc = nc
        self.topology = topology
        self.sessions = sessions
        self.queue: asyncio.Queue[str] = asyncio.Queue()
        self._queued: set[str] = set()
        self._stopping = False

    def submit(self, experiment_id: str) -> None:
        """The one way in: an experiment whose items are all terminal (told by the collector once its
        last result is stored, by the dispatcher's scan, or at start for one interrupted). An id
        already waiting is not queued twice; finalizing one twice is refused by its claim anyway."""
        if experiment_id not in self._queued:
            self._queued.add(experiment_id)
            self.queue.put_nowait(experiment_id)

    def stop(self) -> None:
        self._stopping = True

    async def resume_interrupted(self) -> None:
        async with self.sessions() as session:
            ids = await awaiting_finalization(session)
        for experiment_id in ids:
            self.submit(experiment_id)

    async def run(self) -> None:
        while not self._stopping:
            experiment_id = await self.queue.get()
            self._queued.discard(experiment_id)
            try:
                await self.finalize(experiment_id)
            except Exception as exc:
                log.exception("finalizing %s failed", experiment_id)
                async with self.sessions() as session:
                    failed = await fail_finalization(session, experiment_id, exc)
                if failed:
                    await self._event(experiment_id, "failed")

    async def finalize(self, experiment_id: str) -> None:
        async with self.sessions() as session:
            if await waits_for_twin(session, experiment_id):
                return  # resubmitted when its interleaved baseline is finalized (``_release``)
            experiment = await claim_for_finalizing(session, experiment_id)
            if experiment is None:
                return
            await refresh_statistics(session)
            config = experiment.config
            aggregates = await analyse_experiment(
                session,
                experiment,
                config.run_evaluators,
                policy_for(config),
                max_error_rate=config.max_error_rate,
                gates=config.gates,
                registry=self.registry,
            )
            if experiment.baseline_id:
                baseline = await session.get(Experiment, experiment.baseline_id)
                if baseline is not None:
                    comparison_config = ComparisonConfig(
                        primary=experiment.config.primary_metrics,
                        must_pass_categories=experiment.config.must_pass_categories,
                    )
                    report = await compare_experiments(
                        session,
                        baseline,
                        experiment,
                        comparison_config,
                        candidate_run_scores=aggregates.run_scores,
                    )
                    session.add(
                        Comparison(
                            project_id=experiment.project_id,
                            baseline_id=baseline.id,
                            candidate_id=experiment.id,
                            config=comparison_config,
                            report=report,
                            regression=report.regression,
                        )
                    )
            await store_outputs(session, experiment.id, config)
            final = complete(
                experiment,
                aggregates.model_copy(
                    update={
                        "cache_hits": experiment.cache_hits,
                        "judge_cache_hits": experiment.judge_cache_hits,
                        "spend": await recorded_spend(session, experiment.id, configured_prices()),
                    }
                ),
            )
            await session.commit()
        log.info("experiment %s", final.value, extra={"experiment_id": experiment_id})
        kind: EventKind = "budget_exhausted" if final == ExperimentStatus.BUDGET_EXHAUSTED else "completed"
        await self._event(experiment_id, kind)
        await self._release(experiment_id)

    async def _release(self, experiment_id: str) -> None:
        """Resubmit the interleaved runs that waited for this one, their baseline, to finish."""
        async with self.sessions() as session:
            waiting = await interleaved_dependents(session, experiment_id)
        for dependent in waiting:
            self.submit(dependent)

    async def _event(self, experiment_id: str, kind: EventKind) -> None:
        async with self.sessions() as session:
            row = await session.get(Experiment, experiment_id)
        if row is not None:
            await publish_event(
                self.nc, self.topology, experiment_id, kind, ExperimentStatus(row.status), row
            )
