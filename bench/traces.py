"""Benchmark: OpenTelemetry traffic end to end, ingest -> JetStream -> sampler -> PostgreSQL -> list.

Prints figures; asserts nothing. Run: `make bench` (or `.venv/bin/python bench/traces.py`).
Reuses bench/ingest.py's harness (its own nats-server and PostgreSQL under .yardstick-bench-ingest,
OTLP protobuf bodies made by the OpenTelemetry SDK's encoder from four-span GenAI traces, POSTed
concurrently from a separate process) and starts the ingest service and one sampler as their own
processes, as `stack up` would. The application is sampled at rate 1.0 with three reference-free
evaluators. Reported: how long until every trace is stored (traces/s and spans/s through the
sampler), whether every span is stored once, whether listing the application pages through every
trace, and the sampler's peak RSS.
"""

from __future__ import annotations

import argparse
import asyncio
import subprocess
import sys
import threading
import time
from pathlib import Path

import psutil

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.ingest import HTTP_PORT, Environment, rss_sampler, run_load  # noqa: E402
from services.coordinator.traces.store.traces import TraceQuery, list_traces  # noqa: E402
from shared.db.session import make_engine, make_session_factory  # noqa: E402
from shared.online.application_sampling import ApplicationSampling  # noqa: E402
from shared.online.sampling_config import SamplingSettings, save_config  # noqa: E402
from yardstick.api.evaluation import EvaluatorSpec  # noqa: E402
from yardstick.api.projects import DEFAULT_PROJECT  # noqa: E402

APPLICATION = "bench-shop"  # bench/ingest.py's traces' service.name
SAMPLER_PORT = HTTP_PORT + 50


def start_sampler(env: Environment) -> subprocess.Popen[bytes]:
    """The sampler, not left behind to consume the next run's spans when it does not start."""
    settings = {"SAMPLER_TRACE_SETTLE_S": "0.5", "SAMPLER_FETCH_BATCH": "200"}
    return env.start("services.sampler.main", SAMPLER_PORT, "sampler", settings)


async def configure(database_url: str) -> None:
    engine = make_engine(database_url)
    async with make_session_factory(engine)() as session:
        evaluators = [
            EvaluatorSpec(name="tool_called", args={"tool": "add_item"}),
            EvaluatorSpec(name="tool_sequence", args={"tools": ["add_item"]}),
            EvaluatorSpec(name="latency_budget", args={"max_ms": 5000}),
        ]
        settings = SamplingSettings(
            rate=0.0, applications={APPLICATION: ApplicationSampling(rate=1.0, evaluators=evaluators)}
        )
        await save_config(session, DEFAULT_PROJECT, settings)
        await session.commit()
    await engine.dispose()


async def counts(database_url: str) -> tuple[int, int, int]:
    import psycopg

    from shared.db.session import plain_url

    with psycopg.connect(plain_url(database_url)) as conn:
        row = conn.execute(
            "SELECT (SELECT count(*) FROM traces), (SELECT count(*) FROM trace_spans), "
            "(SELECT count(*) FROM trace_scores)"
        ).fetchone()
    assert row is not None
    return int(row[0]), int(row[1]), int(row[2])


async def listed(database_url: str) -> tuple[int, int, float]:
    """Page through the application's traces 500 at a time, as the API does: (total, distinct ids, s)."""
    engine = make_engine(database_url)
    ids: set[str] = set()
    total = 0
    started = time.perf_counter()
    async with make_session_factory(engine)() as session:
        offset = 0
        while True:
            page = await list_traces(session, TraceQuery(service=APPLICATION, limit=500, offset=offset))
            total = page.total
            ids.update(item.trace_id for item in page.items)
            if len(page.items) < 500:
                break
            offset += 500
    await engine.dispose()
    return total, len(ids), time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--traces", type=int, default=5000, help="four-span traces")
    parser.add_argument("--batch", type=int, default=512, help="spans per export request")
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument(
        "--timeout", type=float, default=600.0, help="give up waiting after this many seconds"
    )
    args = parser.parse_args()
    env = Environment()
    procs: list[subprocess.Popen[bytes]] = []
    try:
        asyncio.run(configure(env.database_url))
        procs.append(env.ingest(HTTP_PORT))  # one at a time: a sampler that fails to start stops ingest too
        procs.append(start_sampler(env))
        sampler_pid = procs[1].pid
        stop, peak = threading.Event(), {sampler_pid: psutil.Process(sampler_pid).memory_info().rss}
        watcher = threading.Thread(target=rss_sampler, args=([sampler_pid], stop, peak), daemon=True)
        watcher.start()
        started = time.perf_counter()
        load = run_load(
            env,
            [f"http://127.0.0.1:{HTTP_PORT}"],
            [procs[0].pid],
            traces=args.traces,
            batch=args.batch,
            concurrency=args.concurrency,
        )
        accepted_s = time.perf_counter() - started
        deadline = started + args.timeout
        stored = asyncio.run(counts(env.database_url))
        while stored[0] < args.traces and time.perf_counter() < deadline:
            time.sleep(0.2)
            stored = asyncio.run(counts(env.database_url))
        stored_s = time.perf_counter() - started
        stop.set()
        watcher.join()
        total, distinct, list_s = asyncio.run(listed(env.database_url))
        spans = load["spans"]
        print(
            f"{args.traces} traces x 4 spans through ingest -> sampler (rate 1.0, 3 evaluators), one sampler"
        )
        print("| spans sent | accepted in | all stored in | traces/s stored | spans/s stored | answers |")
        print("|---|---|---|---|---|---|")
        print(
            f"| {spans:,} | {accepted_s:.1f} s | {stored_s:.1f} s | {stored[0] / stored_s:,.0f} "
            f"| {stored[1] / stored_s:,.0f} | {load['statuses']} |"
        )
        print(
            f"\nstored: {stored[0]:,} traces, {stored[1]:,} spans (sent {spans:,}), {stored[2]:,} scores; "
            f"listed: total {total:,}, {distinct:,} distinct in {list_s:.2f} s (pages of 500); "
            f"sampler RSS peak {peak[sampler_pid] / 2**20:.0f} MiB"
        )
    finally:
        for proc in procs:
            proc.terminate()
            proc.wait(30)
        env.close()


if __name__ == "__main__":
    main()
