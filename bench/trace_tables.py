"""Benchmark: listing and filtering stored traces with many spans in the day-partitioned trace tables.

Prints figures; asserts nothing. Run: `make bench` (small), or
`.venv/bin/python bench/trace_tables.py --spans 10000000` for the figure the scale plan is built on.

Starts its own PostgreSQL under .yardstick-bench-trace-tables (stopped when the script ends), with
the migrations, and fills one database per size with COPY (kept, so a second run of the same size
measures again without filling): ``--spans`` spans in traces of ``--spans-per-trace`` spans spread
evenly over the ``--days`` days up to now, one day partition each, five applications, four models,
5 % errors, one or two tools per trace and two online scores per trace. Then ``--queries`` trace
list queries as ``GET /traces`` runs them (``list_traces`` in a session scoped to the project: the
page and its total) cycle through the filters (none, service, model, the last day, a one-day window,
errors, a tool, a score below a value, a later page), and each filter's p50 / p95 and the overall
p95 are printed in milliseconds.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import statistics
import sys
import time
from collections import defaultdict
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

import psycopg

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.kept_database import kept_database  # noqa: E402
from services.coordinator.traces.store.traces import ScoreBelow, TraceQuery, list_traces  # noqa: E402
from shared.db.project_scope import scope_to_project  # noqa: E402
from shared.db.session import make_engine, make_session_factory, plain_url  # noqa: E402
from shared.db.trace_partitions import maintain  # noqa: E402
from yardstick.api.projects import DEFAULT_PROJECT  # noqa: E402

STATE = ROOT / ".yardstick-bench-trace-tables"
GOAL_P95_MS = 300  # issue 37: listing and filtering traces with 10 million spans stored
APPLICATIONS = ["shop", "support", "search", "drive-thru", "billing"]
MODELS = ["gpt-4o-mini", "gpt-4o", "claude-haiku", "llama-3-8b"]
TOOLS = ["lookup_order", "add_item", "refund", "search_docs", "escalate", "get_menu"]
SCORES = ("tool_called", "latency_budget")
CHUNK = 50_000


def _record(trace_id: str, application: str, model: str, started: datetime, spans: int) -> str:
    """A small but valid TraceRecord document (the list reads its input for the preview)."""
    return json.dumps(
        {
            "trace_id": trace_id,
            "project_id": DEFAULT_PROJECT,
            "application": application,
            "model": model,
            "input_messages": [{"role": "user", "content": f"Where is my order {trace_id[:6]}?"}],
            "output_messages": [{"role": "assistant", "content": "It ships today."}],
            "started_at": started.isoformat(),
            "latency_ms": 850.0,
            "completeness": "root_ended",
            "span_count": spans,
            "roots": [],
        }
    )


def _span(trace_id: str, n: int) -> str:
    """A span document of a typical size (resource, scope, one span with a few attributes)."""
    return json.dumps(
        {
            "resource": {"service.name": "shop", "service.version": "1.4.2", "host.name": "pod-7"},
            "scope": {"name": "openinference.instrumentation", "version": "0.1"},
            "spans": [
                {
                    "trace_id": trace_id,
                    "span_id": f"{n:016x}",
                    "name": "chat",
                    "start_unix_nano": 0,
                    "end_unix_nano": 1,
                    "attributes": {"gen_ai.operation.name": "chat", "gen_ai.usage.input_tokens": 50},
                }
            ],
        }
    )


TRACE_COLUMNS = (
    "id, project_id, trace_id, application, model, started_at, ended_at, latency_ms, input_tokens, "
    "output_tokens, total_tokens, error, tool_names, span_count, completeness, record, stored_at, "
    "updated_at, day"
)
SPAN_COLUMNS = "id, trace_pk, day, span_id, span"
SCORE_COLUMNS = (
    "id, project_id, trace_pk, day, name, value, metadata, evaluator_version, application, model, trace_at"
)


class Rows:
    """The rows of a chunk of traces, their spans and scores (ids counted on from the last chunk)."""

    def __init__(self, per_trace: int, rng: random.Random) -> None:
        self.per_trace, self.rng = per_trace, rng
        self.span_id = self.score_id = 0
        self.traces: list[tuple[object, ...]] = []
        self.spans: list[tuple[object, ...]] = []
        self.scores: list[tuple[object, ...]] = []

    def add(self, pk: int, started: datetime) -> None:
        day, trace_id = started.date(), f"{pk:032x}"
        app, model = APPLICATIONS[pk % len(APPLICATIONS)], MODELS[pk % len(MODELS)]
        ended = started + timedelta(milliseconds=850)
        record = _record(trace_id, app, model, started, self.per_trace)
        error, tools = self.rng.random() < 0.05, self.rng.sample(TOOLS, self.rng.choice((1, 2)))
        labels = (pk, DEFAULT_PROJECT, trace_id, app, model, started, ended, 850.0, 50, 12, 62, error, tools)
        self.traces.append((*labels, self.per_trace, "root_ended", record, started, started, day))
        for _ in range(self.per_trace):
            self.span_id += 1
            self.spans.append((self.span_id, pk, day, f"{self.span_id:016x}", _span(trace_id, self.span_id)))
        for name in SCORES:
            self.score_id += 1
            value = float(self.rng.random() < 0.8)
            self.scores.append(
                (self.score_id, DEFAULT_PROJECT, pk, day, name, value, "{}", "1", app, model, started)
            )

    def copy(self, conn: psycopg.Connection[tuple[object, ...]]) -> None:
        """COPY the chunk in and start the next one."""
        with conn.cursor() as cur:
            _copy(cur, f"traces ({TRACE_COLUMNS})", self.traces)
            _copy(cur, f"trace_spans ({SPAN_COLUMNS})", self.spans)
            _copy(cur, f"trace_scores ({SCORE_COLUMNS})", self.scores)
        conn.commit()
        self.traces, self.spans, self.scores = [], [], []


def fill(url: str, spans: int, per_trace: int, days: int, now: datetime) -> None:
    """Every row with COPY, in chunks of ``CHUNK`` traces; ids set here, sequences moved past them."""
    traces = max(spans // per_trace, 1)
    first, step = now - timedelta(days=days), timedelta(days=days) / traces
    rows = Rows(per_trace, random.Random(7))
    with psycopg.connect(plain_url(url)) as conn:
        for pk in range(1, traces + 1):
            rows.add(pk, first + step * pk)
            if pk % CHUNK == 0 or pk == traces:
                rows.copy(conn)
                print(f"  filled {pk}/{traces} traces", flush=True)
        for table in ("traces", "trace_spans", "trace_scores"):
            conn.execute(f"SELECT setval('{table}_id_seq', (SELECT max(id) FROM {table}))")
        conn.commit()
    with psycopg.connect(plain_url(url), autocommit=True) as conn:
        conn.execute("VACUUM ANALYZE")


def _copy(cur: psycopg.Cursor[tuple[object, ...]], target: str, rows: list[tuple[object, ...]]) -> None:
    with cur.copy(f"COPY {target} FROM STDIN") as copy:
        for row in rows:
            copy.write_row(row)


def queries(n: int, now: datetime, days: int) -> list[tuple[str, TraceQuery]]:
    """``n`` list queries cycling through the filters, their values drawn at random."""
    rng = random.Random(11)
    kinds: list[tuple[str, Callable[[], TraceQuery]]] = [
        ("newest", lambda: TraceQuery()),
        ("service", lambda: TraceQuery(service=rng.choice(APPLICATIONS))),
        ("model", lambda: TraceQuery(model=rng.choice(MODELS))),
        ("last day", lambda: TraceQuery(since=now - timedelta(days=1))),
        ("one-day window", lambda: _window(rng, now, days)),
        ("errors", lambda: TraceQuery(error=True)),
        ("tool", lambda: TraceQuery(tool=rng.choice(TOOLS))),
        ("score below", lambda: TraceQuery(below=ScoreBelow(evaluator="tool_called", value=1.0))),
        ("page 5", lambda: TraceQuery(offset=200)),
    ]
    return [(kinds[i % len(kinds)][0], kinds[i % len(kinds)][1]()) for i in range(n)]


def _window(rng: random.Random, now: datetime, days: int) -> TraceQuery:
    """One application's traces of one day (at random among the stored ones)."""
    since = now - timedelta(days=rng.randint(1, days))
    return TraceQuery(since=since, until=since + timedelta(days=1), service=rng.choice(APPLICATIONS))


async def measure(url: str, plan: list[tuple[str, TraceQuery]]) -> dict[str, list[float]]:
    engine = make_engine(url)
    times: dict[str, list[float]] = defaultdict(list)
    sessions = make_session_factory(engine)
    for kind, query in plan:
        async with sessions() as session:
            scope_to_project(session, DEFAULT_PROJECT)
            started = time.perf_counter()
            await list_traces(session, query)
            times[kind].append((time.perf_counter() - started) * 1000)
    await engine.dispose()
    return times


LOOKUP = (
    "SELECT id FROM traces WHERE (project_id, trace_id) IN (SELECT %s, unnest(%s::text[])) {days} FOR UPDATE"
)


def lookups(url: str, traces: int, rounds: int, days: int) -> dict[str, list[float]]:
    """The sampler's locked look-up of a chunk of 200 stored traces (started one after the other) by
    (project, trace id), as it runs it (every day partition probed: the day of a stored trace is not
    known) and restricted to the chunk's days, in ms; each in a transaction rolled back."""
    rng = random.Random(13)
    times: dict[str, list[float]] = defaultdict(list)
    with psycopg.connect(plain_url(url)) as conn:
        for _ in range(rounds):
            first = rng.randint(1, max(traces - 200, 1))  # a chunk's traces arrived together
            pks = list(range(first, min(first + 200, traces + 1)))
            ids = [f"{pk:032x}" for pk in pks]
            span = conn.execute("SELECT min(day), max(day) FROM traces WHERE id = ANY(%s)", (pks,)).fetchone()
            assert span is not None
            for label, days_sql, args in (
                (f"all {days} days", "", ()),
                ("their days only", "AND day BETWEEN %s AND %s", span),
            ):
                started = time.perf_counter()
                conn.execute(LOOKUP.format(days=days_sql), (DEFAULT_PROJECT, ids, *args)).fetchall()
                times[label].append((time.perf_counter() - started) * 1000)
                conn.rollback()
    return times


def p95(values: list[float]) -> float:
    return statistics.quantiles(values, n=20)[-1] if len(values) > 1 else values[0]


def prepare(spans: int, per_trace: int, days: int, now: datetime) -> str:
    url, created = kept_database(STATE, f"traces_{spans}_{per_trace}_{days}")
    if created:
        asyncio.run(_partitions(url, now, days))
        started = time.perf_counter()
        fill(url, spans, per_trace, days, now)
        print(f"filled in {time.perf_counter() - started:.0f} s (COPY, then VACUUM ANALYZE)")
    return url


async def _partitions(url: str, now: datetime, days: int) -> None:
    engine = make_engine(url)
    async with make_session_factory(engine)() as session:
        await maintain(
            session, today=(now - timedelta(days=days)).date(), ahead_days=days + 1, keep_from=None
        )
        await session.commit()
    await engine.dispose()


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--spans", type=int, default=200_000, help="spans stored (10000000 for the real figure)"
    )
    parser.add_argument("--spans-per-trace", type=int, default=5)
    parser.add_argument(
        "--days", type=int, default=30, help="days the traces spread over (one partition each)"
    )
    parser.add_argument("--queries", type=int, default=270, help="list queries measured")
    args = parser.parse_args()
    if args.spans < 1 or args.spans_per_trace < 1 or args.days < 1 or args.queries < 1:
        parser.error("--spans, --spans-per-trace, --days and --queries must be at least 1")
    now = datetime.now(UTC)
    url = prepare(args.spans, args.spans_per_trace, args.days, now)
    with psycopg.connect(plain_url(url)) as conn:  # a database kept from an earlier run: its own now
        row = conn.execute("SELECT max(started_at) FROM traces").fetchone()
    now = row[0] if row and row[0] else now
    plan = queries(args.queries, now, args.days)
    asyncio.run(measure(url, plan[: len(plan) // 10 or 1]))  # warm the cache first
    times = asyncio.run(measure(url, plan))
    traces = max(args.spans // args.spans_per_trace, 1)
    print(
        f"{args.spans} spans in {traces} traces over {args.days} day partitions; {args.queries} list queries"
    )
    print(f"goal: every filter's p95 <= {GOAL_P95_MS} ms with 10,000,000 spans stored (--spans 10000000)")
    print("| filter | queries | p50 ms | p95 ms | goal |")
    print("|---|---|---|---|---|")
    every = [v for values in times.values() for v in values]
    for kind, values in [*times.items(), ("every filter", every)]:
        worst = p95(values)
        met = "met" if worst <= GOAL_P95_MS else "NOT MET"
        print(f"| {kind} | {len(values)} | {statistics.median(values):.1f} | {worst:.1f} | {met} |")
    print("the sampler's locked look-up of 200 stored traces, ms:")
    for label, values in lookups(url, traces, 30, args.days).items():
        print(f"| {label} | {len(values)} | {statistics.median(values):.1f} | {p95(values):.1f} |")


if __name__ == "__main__":
    main()
