"""Benchmark: comparing two 10,000-item runs (20 score metrics, latency and the error rate; three
breakdown keys of five values each: 15 groups), in process and through ``POST /comparisons``.

Prints figures; asserts nothing. Run: `.venv/bin/python bench/comparisons.py [--items 10000]
[--repeats 5] [--only api|load|stats]`. Its own PostgreSQL (state in .yardstick-bench/comparisons,
kept between runs: the two runs are written once, with COPY) and NATS (a free port, for the
coordinator's runtime). Per phase, the minimum and median (p50) of ``--repeats`` timings after one
warm-up, beside issue 37's goal where it has one (``GOALS``: in process <= 1 s, through the API
<= 2 s), this process's CPU time (p50; PostgreSQL's is not in it) and the machine's 1-minute load
average when the phase ended (goals are on wall times, which other processes on the machine slow):

- ``load``: pairing the runs and reading every metric's paired values from Postgres;
- ``stats``: the comparison itself on the loaded columns (bootstraps, sign flips, Westfall-Young,
  broken items, report);
- ``in process``: both, as the API calls them (``compare_experiments``);
- ``POST /comparisons``: the coordinator's app in process (ASGI), request to stored report.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import httpx
import psycopg

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("LOG_LEVEL", "WARNING")

from bench.kept_database import kept_database  # noqa: E402
from services.coordinator.app import create_app  # noqa: E402
from services.coordinator.comparisons.analysis import compare_experiments, run_specs  # noqa: E402
from services.coordinator.comparisons.store.pairing import load_paired_columns, load_paired_metrics  # noqa: E402
from services.coordinator.settings import CoordinatorSettings  # noqa: E402
from services.stack.servers import free_port, start_nats  # noqa: E402
from shared.analysis import ComparisonBuilder, paired_keys  # noqa: E402
from shared.db.api_keys import create_key_sync  # noqa: E402
from shared.db.models import Experiment  # noqa: E402
from shared.db.session import make_engine, make_session_factory, plain_url  # noqa: E402
from shared.messaging.streams import declare_at  # noqa: E402
from yardstick.api.comparison_config import ComparisonConfig  # noqa: E402
from yardstick.api.eval_messages import AgentTarget  # noqa: E402
from yardstick.api.experiment_config import ExperimentConfig  # noqa: E402
from yardstick.api.roles import Role  # noqa: E402

STATE = Path(os.environ.get("YARDSTICK_BENCH_HOME", ROOT / ".yardstick-bench" / "comparisons"))
SECRET = "bench-secret-not-for-production"
METRICS = 20
KEYS = {"category": 5, "difficulty": 5, "query_type": 5}
CONFIG = ExperimentConfig(target=AgentTarget(), evaluators=[]).model_dump_json()


def _database(items: int) -> str:
    return f"comparisons_{items}"


def _metric_value(m: int, rng: random.Random, quality: float) -> float:
    if m % 2 == 0:  # pass/fail metrics (McNemar)
        return float(rng.random() < quality)
    return min(1.0, max(0.0, rng.gauss(quality, 0.2)))


def _write_run(conn: psycopg.Connection[Any], name: str, items: int, seed: int, quality: float) -> str:
    rng = random.Random(seed)
    row = conn.execute(
        "INSERT INTO experiments (id, project_id, name, dataset_id, version_id, status, config, total, done,"
        " errors, cache_hits, judge_cache_hits, throttled, created_at)"
        " VALUES (gen_random_uuid()::text, 'default', %s, %s, %s, 'completed', %s, %s, %s, 0, 0, 0, 0, now())"
        " RETURNING id",
        (name, "bench-ds", "bench-v1", CONFIG, items, items),
    ).fetchone()
    assert row is not None
    experiment_id = str(row[0])
    with conn.cursor().copy(
        "COPY experiment_items (experiment_id, item_id, trial, position, status, input, metadata,"
        " latency_ms, attempts, throttled) FROM STDIN"
    ) as copy:
        for n in range(items):
            failed = rng.random() < 0.03
            meta = {key: f"{key}-{rng.randrange(size)}" for key, size in KEYS.items()}
            latency = None if failed else rng.lognormvariate(6.0, 0.5)
            copy.write_row(
                (
                    experiment_id,
                    f"item-{n:06d}",
                    0,
                    n,
                    "error" if failed else "ok",
                    "{}",
                    _json(meta),
                    latency,
                    1,
                    0,
                )
            )
    with conn.cursor().copy(
        "COPY scores (experiment_id, item_id, trial, name, value, metadata) FROM STDIN"
    ) as copy:
        for n in range(items):
            for m in range(METRICS):
                if rng.random() < 0.02:
                    continue  # not reported
                copy.write_row(
                    (
                        experiment_id,
                        f"item-{n:06d}",
                        0,
                        f"metric_{m:02d}",
                        _metric_value(m, rng, quality),
                        "{}",
                    )
                )
    return experiment_id


def _json(value: dict[str, str]) -> str:
    import json

    return json.dumps(value)


def prepare(items: int) -> tuple[str, str, str]:
    """(database URL, baseline id, candidate id): written on the first run, reused after."""
    url, created = kept_database(STATE, _database(items))
    if created:
        with psycopg.connect(plain_url(url)) as conn:
            conn.execute(
                "INSERT INTO datasets (id, project_id, name, description, kind, created_at)"
                " VALUES ('bench-ds', 'default', 'bench', '', 'generic', now())"
            )
            conn.execute(
                "INSERT INTO dataset_versions (id, dataset_id, version, content_hash, item_count, source,"
                " status, created_at) VALUES ('bench-v1', 'bench-ds', 1, 'x', %s, 'bench', 'ready', now())",
                (items,),
            )
            _write_run(conn, "cmp-baseline", items, 1, 0.80)
            _write_run(conn, "cmp-candidate", items, 2, 0.78)
            conn.commit()
            conn.execute("ANALYZE")
    with psycopg.connect(plain_url(url)) as conn:
        ids = dict(conn.execute("SELECT name, id FROM experiments").fetchall())
    return url, ids["cmp-baseline"], ids["cmp-candidate"]


Timings = tuple[list[float], list[float]]
"""Wall seconds and this process's CPU seconds (all its threads; PostgreSQL's own time is not in
them) of each repeat."""


async def _time(repeats: int, action: Callable[[], Awaitable[object]]) -> Timings:
    await action()  # warm-up
    wall, cpu = [], []
    for _ in range(repeats):
        start, start_cpu = time.perf_counter(), time.process_time()
        await action()
        wall.append(time.perf_counter() - start)
        cpu.append(time.process_time() - start_cpu)
    return wall, cpu


GOALS = {"in process": 1.0, "POST /comparisons": 2.0}
"""Issue 37's goals for the median (p50), in seconds."""


def _line(label: str, timings: Timings) -> str:
    seconds, cpu = timings
    median = statistics.median(seconds)
    line = (
        f"{label:<20} min {min(seconds):6.3f} s  p50 {median:6.3f} s  cpu p50 {statistics.median(cpu):6.3f} s"
        f"  (n={len(seconds)})"
    )
    goal = GOALS.get(label)
    if goal is not None:
        line += f"  (goal <= {goal:g} s) {'MET' if median <= goal else 'NOT MET'}"
    return line + f"  load average {os.getloadavg()[0]:.1f}"


async def in_process(url: str, baseline_id: str, candidate_id: str, repeats: int, only: str | None) -> None:
    engine = make_engine(url)
    sessions = make_session_factory(engine)
    config = ComparisonConfig()
    async with sessions() as session:
        baseline = await session.get_one(Experiment, baseline_id)
        candidate = await session.get_one(Experiment, candidate_id)

        async def load() -> tuple[Any, dict[str, Any]]:
            paired = await load_paired_columns(session, baseline, candidate, paired_keys(config))
            metrics = sorted(paired.baseline.metric_names & paired.candidate.metric_names)
            return paired, await load_paired_metrics(
                session, baseline_id, candidate_id, metrics, paired.n_pairs
            )

        paired, values = await load()

        async def stats() -> object:
            builder = ComparisonBuilder(paired, config, run_specs(candidate), run_specs(baseline))
            for metric in builder.score_metrics:
                builder.add_metric(metric, *values[metric])
            return builder.report()

        async def whole() -> object:
            return await compare_experiments(session, baseline, candidate, config)

        print(f"{paired.n_pairs} pairs, {len(values)} score metrics, groups {sum(KEYS.values())}", flush=True)
        if only in (None, "load"):
            print(_line("load", await _time(repeats, load)), flush=True)
        if only in (None, "stats"):
            print(_line("stats", await _time(repeats, stats)), flush=True)
        if only is None:
            print(_line("in process", await _time(repeats, whole)), flush=True)
    await engine.dispose()


async def through_api(url: str, baseline_id: str, candidate_id: str, repeats: int) -> None:
    with tempfile.TemporaryDirectory(prefix="bench-cmp-nats-") as nats_dir:
        port = free_port()
        nats = start_nats(port, Path(nats_dir) / "store", Path(nats_dir) / "nats.log")
        try:
            settings = CoordinatorSettings.model_validate(
                {
                    "database_url": url,
                    "nats_url": f"nats://127.0.0.1:{port}",
                    "YARDSTICK_API_KEY_SECRET": SECRET,
                }
            )
            key = await asyncio.to_thread(create_key_sync, url, SECRET, "bench", Role.OWNER)
            await declare_at(settings.nats_url, settings.topology)  # as the stack's bootstrap does
            app = create_app(settings)
            await app.state.runtime.start()
            async with httpx.AsyncClient(
                transport=httpx.ASGITransport(app=app),
                base_url="http://coordinator",
                headers={"Authorization": f"Bearer {key}"},
                timeout=120,
            ) as client:

                async def post() -> object:
                    response = await client.post(
                        "/comparisons", json={"baseline_id": baseline_id, "candidate_id": candidate_id}
                    )
                    response.raise_for_status()
                    return response

                print(_line("POST /comparisons", await _time(repeats, post)), flush=True)
            await app.state.runtime.stop()
        finally:
            nats.terminate()
            nats.wait(10)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--items", type=int, default=10_000)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--only", choices=["api", "load", "stats", "inprocess"], default=None)
    args = parser.parse_args()
    url, baseline_id, candidate_id = prepare(args.items)
    if args.only != "api":
        only = None if args.only == "inprocess" else args.only
        asyncio.run(in_process(url, baseline_id, candidate_id, args.repeats, only))
    if args.only in (None, "api"):
        asyncio.run(through_api(url, baseline_id, candidate_id, args.repeats))


if __name__ == "__main__":
    main()
