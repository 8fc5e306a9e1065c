"""Aggregation and comparison (columns streamed from Postgres, one metric at a time) against the
reference path.

Two finished experiments are written straight into a fresh database; ``analyse_experiment`` must
equal ``compute_aggregates`` of ``load_run`` with run scores from ``run_run_evaluators``, and
``compare_experiments`` must equal ``compare_runs`` of the two loaded runs, exactly (model_dump).
Every check runs with the loader's default chunk size and with chunks of 7 rows.
"""

from __future__ import annotations

import math
import random
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any

import pytest
from sqlalchemy import select, text
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from services.coordinator.comparisons.analysis import compare_experiments
from services.coordinator.comparisons.store.pairing import load_paired_columns, load_paired_metrics
from services.coordinator.experiments import aggregation
from services.coordinator.experiments.aggregation import analyse_experiment
from services.coordinator.experiments.store import run_columns as column_loader
from services.coordinator.experiments.store.full_run import load_run
from services.coordinator.experiments.store.run_columns import ColumnLoadError, load_metrics, load_run_columns
from shared.analysis.comparison import compare_runs
from shared.analysis.pass_rule import PassPolicy
from shared.db.models import Dataset, DatasetVersion, Experiment, ExperimentItem, Score
from shared.evaluators.item_results import ItemResult
from tests.evaluator_registry import run_run_evaluators
from tests.shared.analysis.in_memory import compute_aggregates
from yardstick.api.comparison_config import ComparisonConfig
from yardstick.api.comparison_report import ComparisonReport
from yardstick.api.eval_messages import AgentTarget
from yardstick.api.evaluation import EvaluatorSpec
from yardstick.api.experiment_config import ExperimentConfig
from yardstick.api.run_aggregates import ExperimentAggregates


def same_report(actual: ComparisonReport, expected: ComparisonReport) -> bool:
    """The Postgres comparison equals the in-memory one; only the former knows how the runs were
    scheduled (``latency_interleaved``: False, they ran apart)."""
    assert actual.latency_interleaved is False and expected.latency_interleaved is None
    return actual.model_dump(exclude={"latency_interleaved"}) == expected.model_dump(
        exclude={"latency_interleaved"}
    )


pytestmark = pytest.mark.integration

Sessions = async_sessionmaker[AsyncSession]

SIZE, TRIALS = 60, 2
COMMON_METRICS = ("order_correctness", "tool_call_accuracy", "faithfulness", "ttft_ms", "hallucination_rate")
POSITIONS = random.Random(99).sample(range(1000), 100)
"""Dataset item n sits at POSITIONS[n]: item order is not item-id order."""

BUILTIN_SPECS = [
    EvaluatorSpec(name="avg_order_correctness"),
    EvaluatorSpec(name="avg_score", args={"score": "faithfulness"}),
    EvaluatorSpec(name="score_breakdown"),
    EvaluatorSpec(
        name="score_breakdown", args={"keys": ["tier", "category"], "scores": ["order_correctness", "mrr"]}
    ),
]
ITEM_IDS = EvaluatorSpec(name="item_ids")
"""A run evaluator that is not built in (registered by the ``item_ids_evaluator`` fixture)."""
ALL_SPECS = [BUILTIN_SPECS[0], ITEM_IDS, *BUILTIN_SPECS[1:]]


@dataclass(frozen=True)
class RunShape:
    name: str
    seed: int
    keys: list[tuple[int, int]]
    """(dataset item n, trial) in insertion order."""
    metrics: tuple[str, ...]
    quality: float
    error_rate: float
    candidate: bool


BASELINE = RunShape(
    name="baseline",
    seed=1,
    keys=[(n, t) for n in range(SIZE) for t in range(TRIALS)],
    metrics=(*COMMON_METRICS, "legacy_score"),
    quality=0.8,
    error_rate=0.06,
    candidate=False,
)
CANDIDATE = RunShape(
    name="candidate",
    seed=2,
    # items 3 and 10 and trial 1 of item 20 are missing; items 60 and 61 are new
    keys=[(n, t) for n in range(SIZE + 2) for t in range(TRIALS) if n not in (3, 10) and (n, t) != (20, 1)][
        ::-1
    ],
    metrics=(*COMMON_METRICS, "mrr"),
    quality=0.6,
    error_rate=0.1,
    candidate=True,
)


def item_metadata(n: int, candidate: bool) -> dict[str, Any]:
    """The dataset item's metadata: a few values, some None, some missing (seeded per item)."""
    rng = random.Random(1000 + n)
    metadata: dict[str, Any] = {"source": "synthetic"}
    draw = rng.random()
    if draw < 0.85:
        metadata["category"] = rng.choice(["menu", "upsell", "combo"])
    elif draw < 0.93:
        metadata["category"] = None
    draw = rng.random()
    if draw < 0.7:
        metadata["difficulty"] = rng.choice(["easy", "hard", 2])
    elif draw < 0.8:
        metadata["difficulty"] = None
    if rng.random() < 0.4:
        metadata["query_type"] = rng.choice(["lookup", "order"])
    if rng.random() < 0.6:
        metadata["tier"] = rng.choice([True, 1, "gold"])
    if n % 11 == 0:  # only the candidate has it: pairs take the candidate's value
        metadata.pop("query_type", None)
        if candidate:
            metadata["query_type"] = "followup"
    if candidate and n % 7 == 0:  # relabelled in the candidate's dataset: pairs keep the baseline's
        metadata["category"] = "relabelled"
        metadata.pop("difficulty", None)
    return metadata


def metric_value(name: str, rng: random.Random, quality: float) -> float:
    if name == "order_correctness":
        return 1.0 if rng.random() < quality else rng.choice([0.0, 0.25, 0.5, 0.75])
    if name in ("tool_call_accuracy", "hallucination_rate"):
        hit = rng.random() < quality + 0.1
        return float(hit if name == "tool_call_accuracy" else not hit)
    if name == "ttft_ms":
        return rng.uniform(100.0, 900.0)
    if name == "mrr":
        return 1 / rng.randint(1, 5)
    return min(1.0, rng.uniform(0.2, 1.0) * (quality + 0.3))


def experiment_rows(experiment_id: str, shape: RunShape) -> list[ExperimentItem | Score]:
    rng = random.Random(shape.seed)
    rows: list[ExperimentItem | Score] = []
    for n, trial in shape.keys:
        item_id = f"item-{n:03d}"
        failed = rng.random() < shape.error_rate
        ok_latency = rng.lognormvariate(6.0, 0.5) if rng.random() < 0.95 else None
        rows.append(
            ExperimentItem(
                experiment_id=experiment_id,
                item_id=item_id,
                trial=trial,
                position=POSITIONS[n],
                status="error" if failed else "ok",
                input={"customer_utterance": f"order {n}"},
                expected_output={"n": n},
                item_metadata=item_metadata(n, shape.candidate),
                output=None if failed else {"answer": n, "trial": trial},
                error="TargetTimeout: no reply in 30 s" if failed else None,
                latency_ms=rng.choice([30000.0, None]) if failed else ok_latency,
                usage=(
                    None
                    if failed or rng.random() < 0.3
                    else {"input_tokens": 40 + n, "output_tokens": 7 + trial, "total_tokens": 47 + n + trial}
                ),
                attempts=1,
            )
        )
        if failed and rng.random() < 0.7:
            continue  # most failed items have no scores; the others do
        for name in shape.metrics:
            draw = rng.random()
            if draw < 0.12:
                continue  # not reported
            failure = draw < 0.2
            rows.append(
                Score(
                    experiment_id=experiment_id,
                    item_id=item_id,
                    trial=trial,
                    name=name,
                    value=None if failure else metric_value(name, rng, shape.quality),
                    comment="evaluator failed" if failure else f"{name} of {item_id}",
                    score_metadata={"n": n},
                    error="ValueError: judge returned garbage" if failure else None,
                )
            )
    return rows


async def add_experiment(session: AsyncSession, shape: RunShape, baseline_id: str | None = None) -> str:
    dataset = Dataset(name=f"syn-{shape.name}")
    session.add(dataset)
    await session.flush()
    version = DatasetVersion(dataset_id=dataset.id, version=1, content_hash="x", item_count=SIZE, source="t")
    session.add(version)
    await session.flush()
    experiment = Experiment(
        name=shape.name,
        dataset_id=dataset.id,
        version_id=version.id,
        status="finalizing",
        config=ExperimentConfig(target=AgentTarget(), evaluators=[], run_evaluators=ALL_SPECS),
        baseline_id=baseline_id,
        total=len(shape.keys),
        done=len(shape.keys),
    )
    session.add(experiment)
    await session.flush()
    rows = experiment_rows(experiment.id, shape)
    session.add_all(rows)
    experiment.errors = sum(1 for r in rows if isinstance(r, ExperimentItem) and r.status == "error")
    await session.commit()
    return experiment.id


@dataclass(frozen=True)
class Ids:
    baseline: str
    candidate: str
    empty: str


@pytest.fixture
async def experiments(session_factory: Sessions) -> Ids:
    async with session_factory() as session:
        baseline = await add_experiment(session, BASELINE)
        candidate = await add_experiment(session, CANDIDATE, baseline_id=baseline)
        empty = await add_experiment(
            session,
            RunShape(name="empty", seed=3, keys=[], metrics=(), quality=0, error_rate=0, candidate=True),
        )
    return Ids(baseline=baseline, candidate=candidate, empty=empty)


@pytest.fixture(params=[None, 7], ids=["default-chunks", "chunks-of-7"])
def chunk_rows(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> int:
    """The loader's chunk size for this test (7: many chunks, none aligned with anything)."""
    if request.param is not None:
        monkeypatch.setattr(column_loader, "CHUNK_ROWS", request.param)
    return column_loader.CHUNK_ROWS


@pytest.fixture
def full_loads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Ids of the experiments whose full item results ``analyse_experiment`` loaded."""
    loaded: list[str] = []

    async def counting_load_run(
        session: AsyncSession, experiment: Experiment
    ) -> tuple[Any, list[ItemResult]]:
        loaded.append(experiment.id)
        return await load_run(session, experiment)

    monkeypatch.setattr(aggregation, "load_run", counting_load_run)
    return loaded


async def fetch(session: AsyncSession, experiment_id: str) -> Experiment:
    experiment = await session.get(Experiment, experiment_id)
    assert experiment is not None
    return experiment


async def reference_aggregates(
    session: AsyncSession, experiment: Experiment, specs: Sequence[EvaluatorSpec], pass_threshold: float
) -> ExperimentAggregates:
    run, results = await load_run(session, experiment)
    run.run_scores = await run_run_evaluators(list(specs), item_results=results)
    return compute_aggregates(run, pass_threshold)


async def store_aggregates(sessions: Sessions, ids: Sequence[str]) -> None:
    """What the finalizer leaves behind (run scores included), written from the reference path."""
    async with sessions() as session:
        for experiment_id in ids:
            experiment = await fetch(session, experiment_id)
            aggregates = await reference_aggregates(session, experiment, BUILTIN_SPECS, 0.5)
            experiment.aggregates = aggregates
        await session.commit()


async def test_the_experiments_cover_the_cases(session_factory: Sessions, experiments: Ids) -> None:
    """The synthetic data has what the comparisons below are about (checked on the reference path)."""
    async with session_factory() as session:
        base, _ = await load_run(session, await fetch(session, experiments.baseline))
        cand, _ = await load_run(session, await fetch(session, experiments.candidate))
    for run in (base, cand):
        assert sum(i.status == "error" for i in run.items) >= 3
        assert any(i.status == "error" and i.scores for i in run.items)
        assert any(i.metadata.get("category", "") is None for i in run.items)
        assert any("difficulty" not in i.metadata for i in run.items)
        assert any(None in i.scores.values() for i in run.items)
        assert any(len(i.scores) < 4 and i.status == "ok" for i in run.items)
        assert any(i.latency_ms is None for i in run.items)
        assert any(i.usage is None for i in run.items) and any(i.usage for i in run.items)
        assert [i.item_id for i in run.items] != sorted(i.item_id for i in run.items)
    assert len(base.items) == SIZE * TRIALS
    # pairs whose runs disagree on a metadata value, or where only the candidate has the key
    cand_meta = {i.key: i.metadata for i in cand.items}
    both = [(i.metadata, cand_meta[i.key]) for i in base.items if i.key in cand_meta]
    assert any("category" in b and "category" in c and b["category"] != c["category"] for b, c in both)
    assert any("query_type" not in b and "query_type" in c for b, c in both)


@pytest.mark.parametrize("pass_threshold", [0.5, 0.7])
async def test_analyse_experiment_equals_the_reference(
    session_factory: Sessions,
    experiments: Ids,
    chunk_rows: int,
    item_ids_evaluator: list[list[ItemResult]],
    full_loads: list[str],
    pass_threshold: float,
) -> None:
    for experiment_id in (experiments.baseline, experiments.candidate, experiments.empty):
        async with session_factory() as session:
            experiment = await fetch(session, experiment_id)
            actual = await analyse_experiment(session, experiment, ALL_SPECS, PassPolicy(pass_threshold))
        async with session_factory() as session:
            expected = await reference_aggregates(
                session, await fetch(session, experiment_id), ALL_SPECS, pass_threshold
            )
        assert actual.model_dump() == expected.model_dump()
    assert full_loads == [experiments.baseline, experiments.candidate, experiments.empty]
    # the non-built-in evaluator saw the same items, in item order, on both paths
    assert len(item_ids_evaluator) == 6
    assert item_ids_evaluator[0] == item_ids_evaluator[1]
    assert item_ids_evaluator[2] == item_ids_evaluator[3]


async def test_analyse_with_built_ins_only_never_loads_full_results(
    session_factory: Sessions, experiments: Ids, chunk_rows: int, full_loads: list[str]
) -> None:
    async with session_factory() as session:
        experiment = await fetch(session, experiments.candidate)
        actual = await analyse_experiment(session, experiment, BUILTIN_SPECS)
        expected = await reference_aggregates(session, experiment, BUILTIN_SPECS, 0.5)
    assert actual.model_dump() == expected.model_dump()
    assert len(expected.run_scores) > len(BUILTIN_SPECS)  # the breakdowns have rows
    assert full_loads == []


@pytest.mark.parametrize(
    "config",
    [
        ComparisonConfig(resamples=500, seed=11),
        ComparisonConfig(
            resamples=300,
            seed=5,
            metrics=["faithfulness", "order_correctness", "latency_ms", "mrr"],
            breakdown_keys=["tier", "query_type"],
            fail_on_breakdown=True,
        ),
        ComparisonConfig(
            resamples=300,
            include_latency=False,
            include_error_rate=False,
            lower_is_better=["faithfulness"],
            thresholds={"faithfulness": 0.01},
        ),
    ],
    ids=["default", "chosen-metrics", "no-latency-no-errors"],
)
async def test_compare_experiments_equals_the_reference(
    session_factory: Sessions, experiments: Ids, chunk_rows: int, config: ComparisonConfig
) -> None:
    await store_aggregates(session_factory, [experiments.baseline, experiments.candidate])
    async with session_factory() as session:
        baseline = await fetch(session, experiments.baseline)
        candidate = await fetch(session, experiments.candidate)
        actual = await compare_experiments(session, baseline, candidate, config)
    async with session_factory() as session:
        base_run, _ = await load_run(session, await fetch(session, experiments.baseline))
        cand_run, _ = await load_run(session, await fetch(session, experiments.candidate))
    expected = compare_runs(base_run, cand_run, config)
    assert same_report(actual, expected)
    assert expected.unmatched_baseline and expected.unmatched_candidate and expected.run_scores
    groups = {(b.key, b.value) for b in expected.breakdowns}
    assert ("query_type", "followup") in groups or "query_type" not in config.breakdown_keys


async def test_compare_with_the_candidates_new_run_scores(
    session_factory: Sessions, experiments: Ids, chunk_rows: int
) -> None:
    """At finalization the candidate's run scores are passed in, not read from its aggregates."""
    await store_aggregates(session_factory, [experiments.baseline])
    config = ComparisonConfig(resamples=300, seed=3)
    async with session_factory() as session:
        baseline = await fetch(session, experiments.baseline)
        candidate = await fetch(session, experiments.candidate)
        new_scores = (await analyse_experiment(session, candidate, BUILTIN_SPECS)).run_scores
        actual = await compare_experiments(
            session, baseline, candidate, config, candidate_run_scores=new_scores
        )
        base_run, _ = await load_run(session, baseline)
        cand_run, cand_results = await load_run(session, candidate)
    assert cand_run.run_scores == []  # the candidate has no stored aggregates
    cand_run.run_scores = await run_run_evaluators(BUILTIN_SPECS, item_results=cand_results)
    expected = compare_runs(base_run, cand_run, config)
    assert same_report(actual, expected)
    assert any(delta.delta is not None for delta in expected.run_scores)


@pytest.mark.parametrize("sides", [("baseline", "empty"), ("empty", "candidate"), ("empty", "empty")])
async def test_compare_with_an_empty_experiment(
    session_factory: Sessions, experiments: Ids, chunk_rows: int, sides: tuple[str, str]
) -> None:
    config = ComparisonConfig(resamples=200)
    base_id, cand_id = (getattr(experiments, side) for side in sides)
    async with session_factory() as session:
        baseline, candidate = await fetch(session, base_id), await fetch(session, cand_id)
        actual = await compare_experiments(session, baseline, candidate, config)
        expected = compare_runs(
            (await load_run(session, baseline))[0], (await load_run(session, candidate))[0], config
        )
    assert same_report(actual, expected)
    assert expected.n_pairs == 0


async def test_rows_stream_in_chunks_of_the_set_size(
    session_factory: Sessions, experiments: Ids, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(column_loader, "CHUNK_ROWS", 7)
    columns: list[Any] = [ExperimentItem.item_id, ExperimentItem.trial]
    stmt = (
        select(*columns)
        .where(ExperimentItem.experiment_id == experiments.baseline)
        .order_by(*column_loader.item_order(ExperimentItem))
    )
    async with session_factory() as session:
        sizes: list[int] = []
        rows: list[tuple[str, int]] = []
        async for part in column_loader.stream_rows(session, stmt):
            sizes.append(len(part))
            rows += [(item_id, trial) for item_id, trial in part]
        run, _ = await load_run(session, await fetch(session, experiments.baseline))
    assert sizes == [7] * (len(rows) // 7) + [len(rows) % 7]
    assert len(sizes) == math.ceil(SIZE * TRIALS / 7)
    assert rows == [(i.item_id, i.trial) for i in run.items]


CountItems = Callable[[AsyncSession, str], Awaitable[int]]


def miscount(by: int, real: CountItems = column_loader.count_items) -> CountItems:
    """``count_items`` off by ``by``: rows appear or vanish between the count and the read."""

    async def count_items(session: AsyncSession, experiment_id: str) -> int:
        return await real(session, experiment_id) + by

    return count_items


async def test_a_stable_experiment_loads_and_a_changing_one_raises(
    session_factory: Sessions, experiments: Ids, chunk_rows: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with session_factory() as session:
        baseline = await fetch(session, experiments.baseline)
        candidate = await fetch(session, experiments.candidate)
        size = await column_loader.count_items(session, baseline.id)
        columns = await load_run_columns(session, baseline, ["category"])
        assert columns.size == size == SIZE * TRIALS
        loaded = await load_metrics(session, baseline.id, columns.metric_names, size)
        assert {m: v.size for m, v in loaded.items()} == dict.fromkeys(columns.metric_names, size)
        paired = await load_paired_columns(session, baseline, candidate, ["category"])
        metrics = ["order_correctness", "tool_call_accuracy"]
        values = await load_paired_metrics(session, baseline.id, candidate.id, metrics, paired.n_pairs)
        assert {m: (b.size, c.size) for m, (b, c) in values.items()} == dict.fromkeys(
            metrics, (paired.n_pairs, paired.n_pairs)
        )

        # the rows seen while reading are not the rows counted first
        for wrong in (size - 1, size + 1):
            with pytest.raises(ColumnLoadError):
                await load_metrics(session, baseline.id, ["order_correctness"], wrong)
        for wrong in (paired.n_pairs - 1, paired.n_pairs + 1):
            with pytest.raises(ColumnLoadError):
                await load_paired_metrics(session, baseline.id, candidate.id, ["order_correctness"], wrong)
        for by, what in ((-1, "gained items"), (1, "lost items")):
            monkeypatch.setattr(column_loader, "count_items", miscount(by))
            with pytest.raises(ColumnLoadError, match=what):
                await load_run_columns(session, baseline, ["category"])


async def test_refresh_statistics_gives_the_planner_the_new_rows(
    session_factory: Sessions, experiments: Ids
) -> None:
    tables = ("experiment_items", "scores")
    reltuples = text("SELECT relname, reltuples FROM pg_class WHERE relname = ANY(:tables)")
    async with session_factory() as session:
        counts = {
            table: (await session.execute(text(f"SELECT count(*) FROM {table}"))).scalar_one()
            for table in tables
        }
        await column_loader.refresh_statistics(session)
        planner = {name: n for name, n in (await session.execute(reltuples, {"tables": list(tables)})).all()}
        # the session is usable afterwards: the analysis reads the run with fresh statistics
        baseline = await fetch(session, experiments.baseline)
        columns = await load_run_columns(session, baseline, [])
    assert counts["experiment_items"] > 0 and counts["scores"] > 0
    assert planner == {table: float(counts[table]) for table in tables}  # ANALYZE read every row
    assert columns.size > 0
