"""Benchmark: OpenTelemetry traffic end to end, ingest -> JetStream -> sampler(s) -> PostgreSQL -> list.

Prints figures; asserts nothing. Run: `make bench` (or `.venv/bin/python bench/traces.py`).
Reuses bench/ingest.py's harness (its own nats-server and PostgreSQL under .yardstick-bench-ingest,
OTLP protobuf bodies made by the OpenTelemetry SDK's encoder from four-span GenAI traces, POSTed
concurrently from a separate process). The application is sampled at rate 1.0 with three
reference-free evaluators.

For each sampler count (``--samplers 1,2``), in one run: that many sampler processes are started
as `stack up` starts them (one durable consumer shared), then the load is POSTed to the ingest
service. Reported: spans/s **accepted** (answered 200, in JetStream) and spans/s **stored** (the
spans over the time from the first request to the moment every trace is stored: the samplers keep
up when the two are close), beside the goal (>= 10,000 spans/s); the traces each sampler stored;
every span and score stored once; listing the application pages through every trace.

``--profile DIR`` records each sampler with py-spy while it drains (raw folded stacks).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import httpx
import psutil

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.ingest import HTTP_PORT, Environment, rss_sampler, run_load  # noqa: E402
from services.coordinator.traces.store.traces import TraceQuery, list_traces  # noqa: E402
from shared.db.session import make_engine, make_session_factory, plain_url  # noqa: E402
from shared.online.application_sampling import ApplicationSampling  # noqa: E402
from shared.online.sampling_config import SamplingSettings, save_config  # noqa: E402
from yardstick.api.evaluation import EvaluatorSpec  # noqa: E402
from yardstick.api.projects import DEFAULT_PROJECT  # noqa: E402

APPLICATION = "bench-shop"  # bench/ingest.py's traces' service.name
SAMPLER_PORT = HTTP_PORT + 50
GOAL_SPANS_S = 10_000


def start_samplers(env: Environment, count: int) -> list[subprocess.Popen[bytes]]:
    """``count`` samplers, all started before any is waited for (as `stack up` does); none left
    behind to consume the next run's spans when one does not start."""
    settings = {"SAMPLER_TRACE_SETTLE_S": "0.5"}
    started = [
        env.spawn("services.sampler.main", SAMPLER_PORT + i, f"sampler-{i}", settings) for i in range(count)
    ]
    try:
        for i, proc in enumerate(started):
            env.wait_healthy(proc, SAMPLER_PORT + i, "services.sampler.main", f"sampler-{i}")
    except BaseException:
        for proc in started:
            proc.kill()
            proc.wait(30)
        raise
    return started


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


def sql(database_url: str, statement: str) -> tuple[Any, ...]:
    import psycopg

    with psycopg.connect(plain_url(database_url), autocommit=True) as conn:
        cursor = conn.execute(statement)  # type: ignore[arg-type]  # a literal
        row = cursor.fetchone() if cursor.description else None
    return tuple(row or ())


def counts(database_url: str) -> tuple[int, int, int, int]:
    """(traces, spans, scores, trace ids stored more than once)."""
    row = sql(
        database_url,
        "SELECT (SELECT count(*) FROM traces), (SELECT count(*) FROM trace_spans), "
        "(SELECT count(*) FROM trace_scores), "
        "(SELECT count(*) FROM (SELECT 1 FROM traces GROUP BY project_id, trace_id HAVING count(*) > 1) d)",
    )
    return int(row[0]), int(row[1]), int(row[2]), int(row[3])


async def listed(database_url: str) -> tuple[int, float]:
    """Page through the application's traces 500 at a time, as the API does: (distinct ids, s)."""
    engine = make_engine(database_url)
    ids: set[str] = set()
    started = time.perf_counter()
    async with make_session_factory(engine)() as session:
        offset = 0
        while True:
            page = await list_traces(session, TraceQuery(service=APPLICATION, limit=500, offset=offset))
            ids.update(item.trace_id for item in page.items)
            if len(page.items) < 500:
                break
            offset += 500
    await engine.dispose()
    return len(ids), time.perf_counter() - started


def profile(pids: list[int], out: Path, samplers: int) -> list[subprocess.Popen[bytes]]:
    out.mkdir(parents=True, exist_ok=True)
    spy = Path(sys.executable).parent / "py-spy"
    return [
        subprocess.Popen(
            [
                str(spy),
                "record",
                "-p",
                str(pid),
                "--format",
                "raw",
                "-r",
                "50",
                "--nonblocking",
                "-o",
                str(out / f"sampler-{samplers}x-{i}.txt"),
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        for i, pid in enumerate(pids)
    ]


def cpu_seconds(pids: list[int]) -> float:
    """User + system CPU seconds the processes used so far."""
    return sum(sum(psutil.Process(pid).cpu_times()[:2]) for pid in pids)


def postgres_cpu_seconds(env: Environment) -> float:
    """CPU seconds of the PostgreSQL server's processes alive now (the samplers' backends among them)."""
    server = psutil.Process(env.postgres_pid)
    total = 0.0
    for proc in [server, *server.children()]:
        with contextlib.suppress(psutil.Error):
            total += sum(proc.cpu_times()[:2])
    return total


def shares(count: int) -> list[int]:
    """Traces each sampler stored (its /healthz)."""
    return [
        int(
            httpx.get(f"http://127.0.0.1:{SAMPLER_PORT + i}/healthz", timeout=5)
            .json()["traces"]
            .get("stored", 0)
        )
        for i in range(count)
    ]


def run(env: Environment, args: argparse.Namespace, samplers: int) -> dict[str, Any]:
    sql(env.database_url, "TRUNCATE traces, trace_spans, trace_scores")
    procs = start_samplers(env, samplers)
    pids = [p.pid for p in procs]
    spies = profile(pids, args.profile, samplers) if args.profile else []
    stop, peak = threading.Event(), {pid: psutil.Process(pid).memory_info().rss for pid in pids}
    cpu_before = cpu_seconds(pids), postgres_cpu_seconds(env)
    watcher = threading.Thread(target=rss_sampler, args=(pids, stop, peak), daemon=True)
    watcher.start()
    try:
        load = run_load(
            env,
            [f"http://127.0.0.1:{HTTP_PORT}"],
            [],
            traces=args.traces,
            batch=args.batch,
            concurrency=args.concurrency,
        )
        deadline = time.monotonic() + args.timeout
        stored = counts(env.database_url)
        while stored[0] < args.traces and time.monotonic() < deadline:
            time.sleep(0.05)
            stored = counts(env.database_url)
        done = time.perf_counter()
        sampler_cpu, postgres_cpu = (
            cpu_seconds(pids) - cpu_before[0],
            postgres_cpu_seconds(env) - cpu_before[1],
        )
        by_sampler = shares(samplers)
    finally:
        stop.set()
        watcher.join()
        for spy in spies:
            spy.send_signal(2)  # py-spy writes its file on SIGINT
            spy.wait(30)
        for proc in procs:
            proc.terminate()
            proc.wait(30)
    distinct, list_s = asyncio.run(listed(env.database_url))
    stored = counts(env.database_url)
    stored_s = done - load["started"]
    return {
        "samplers": samplers,
        "spans": load["spans"],
        "accepted": load["spans"] / load["elapsed_s"],
        "answers": load["statuses"],
        "stored_s": stored_s,
        "stored": stored,
        "rate": stored[1] / stored_s,
        "by_sampler": by_sampler,
        "listed": distinct,
        "list_s": list_s,
        "rss": max(peak.values()) / 2**20,
        "sampler_cpu": sampler_cpu,
        "postgres_cpu": postgres_cpu,
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--traces", type=int, default=5000, help="four-span traces per run")
    parser.add_argument("--batch", type=int, default=512, help="spans per export request")
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--samplers", default="1,2", help="sampler processes per run, comma-separated")
    parser.add_argument("--profile", type=Path, help="py-spy each sampler into this folder")
    parser.add_argument(
        "--timeout", type=float, default=600.0, help="give up waiting after this many seconds"
    )
    args = parser.parse_args()
    env = Environment()
    ingest: subprocess.Popen[bytes] | None = None
    try:
        asyncio.run(configure(env.database_url))
        ingest = env.ingest(HTTP_PORT)
        results = [run(env, args, int(n)) for n in args.samplers.split(",")]
    finally:
        if ingest is not None:
            ingest.terminate()
            ingest.wait(30)
        env.close()
    print(
        f"{args.traces} traces x 4 spans, rate 1.0, 3 evaluators, POSTed at concurrency {args.concurrency} "
        "while the samplers run: spans/s accepted by ingest, and stored (from the first request to the "
        "last trace stored)"
    )
    print(
        "| samplers | spans | accepted spans/s | stored spans/s | >= 10,000 spans/s | stored / accepted "
        "| stored in | sampler peak RSS |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for r in results:
        met = "MET" if r["rate"] >= GOAL_SPANS_S else "NOT MET"
        print(
            f"| {r['samplers']} | {r['spans']:,} | {r['accepted']:,.0f} | {r['rate']:,.0f} | {met} "
            f"| {r['rate'] / r['accepted']:.2f} | {r['stored_s']:.1f} s | {r['rss']:.0f} MiB |"
        )
    print(
        "\n| samplers | sampler CPU s | PostgreSQL CPU s | spans per sampler CPU s | spans per CPU s "
        "(sampler + PostgreSQL) |"
    )
    print("|---|---|---|---|---|")
    for r in results:
        spans, both = r["stored"][1], r["sampler_cpu"] + r["postgres_cpu"]
        print(
            f"| {r['samplers']} | {r['sampler_cpu']:.1f} | {r['postgres_cpu']:.1f} "
            f"| {spans / r['sampler_cpu']:,.0f} | {spans / both:,.0f} |"
        )
    for r in results:
        traces, spans, scores, doubled = r["stored"]
        print(
            f"\n{r['samplers']} sampler(s): stored {traces:,} traces, {spans:,} spans (sent {r['spans']:,}), "
            f"{scores:,} scores, {doubled} trace ids stored twice, traces stored by each sampler "
            f"{r['by_sampler']}; listed {r['listed']:,} distinct in "
            f"{r['list_s']:.2f} s (pages of 500); answers {r['answers']}"
        )


if __name__ == "__main__":
    main()
