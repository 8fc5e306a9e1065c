"""Benchmark: coordinator peak RSS against the item count (it must not grow with it).

Prints figures; asserts nothing. Run: `.venv/bin/python bench/coordinator_memory.py` (the 100k run
takes 10+ minutes on 2 cores). Uses its own stack (state in .yardstick-bench/coordinator-memory,
ports 8900+ and NATS 14422), so it never touches a dev stack or bench/throughput.py's.

For each size: push a synthetic retrieval dataset (the golden set's queries repeated, with
category/difficulty metadata), restart the coordinator (so every size starts from a fresh process),
run one experiment on the search target (corpus backend, its answer cache on: the cheapest real
target measured, ~250 items/s vs ~50-90 without the cache or ~190 over HTTP) with the default
retrieval evaluators (14 scores per item) and run evaluator (score_breakdown), sampling the
coordinator's RSS every 0.5 s through the run and its finalization. With --baseline, a second
experiment per size is compared at completion with the first (the finalizer then loads two runs).
With --reports, the md/junit/json reports and the first /items page are fetched afterwards and the
RSS over those requests is reported too. With --compare (implies --baseline), the coordinator is
restarted and the two runs are compared again through ``POST /comparisons``: its peak RSS and time.
"""

from __future__ import annotations

import argparse
import os
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import psutil
import psycopg

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("YARDSTICK_HOME", str(ROOT / ".yardstick-bench" / "coordinator-memory"))
os.environ.setdefault("YARDSTICK_PORT_BASE", "8900")
os.environ.setdefault("YARDSTICK_NATS_PORT", "14422")
os.environ.setdefault("EVAL_CONCURRENCY", "64")  # per worker process: the experiment's C is the limit
os.environ.setdefault("LOG_LEVEL", "WARNING")

from services.stack import launcher  # noqa: E402
from services.stack.services_spec import port_base  # noqa: E402
from services.stack.state import StackState  # noqa: E402
from shared.datasets.files import load_dataset_file  # noqa: E402
from shared.db.session import plain_url  # noqa: E402
from yardstick.client import Client  # noqa: E402

STATE = Path(os.environ["YARDSTICK_HOME"])
GOLDEN = [i.model_dump(mode="json") for i in load_dataset_file(ROOT / "datasets/search/golden-v1.json").items]
DIFFICULTY = ("easy", "medium", "hard")
PUSH_BATCH = 20_000
MIB = 2**20


def synthetic_items(n: int) -> list[dict[str, Any]]:
    """The golden queries repeated to n items, each with a category and a difficulty."""
    out = []
    for i in range(n):
        item = GOLDEN[i % len(GOLDEN)]
        out.append(
            {**item, "id": f"mem-{i:06d}", "metadata": {**item["metadata"], "difficulty": DIFFICULTY[i % 3]}}
        )
    return out


def push(client: Client, name: str, n: int) -> None:
    batch = synthetic_items(n)
    for start in range(0, n, PUSH_BATCH):
        client.push_dataset(name, batch[start : start + PUSH_BATCH], kind="retrieval", replace=start == 0)


def target(kind: str, limit: int, cache: bool) -> dict[str, Any]:
    if kind == "http":  # the same search, over the search-proxy's HTTP API
        return {
            "kind": "http",
            "url": f"http://127.0.0.1:{port_base() + 2}/v1/search",
            "body_template": {"query": "{input.query}", "limit": limit, "bypass_cache": not cache},
        }
    return {"kind": "search", "backend": "corpus", "limit": limit, "bypass_cache": not cache}


def coordinator_pid() -> int:
    state = StackState.load(STATE)
    if state is None:
        raise RuntimeError(f"no stack state in {STATE}")
    return next(p.pid for p in state.processes if p.name == "coordinator")


class RssSampler(threading.Thread):
    """RSS of one process every ``interval`` seconds, with monotonic timestamps."""

    def __init__(self, pid: int, interval: float = 0.5) -> None:
        super().__init__(daemon=True)
        self.proc = psutil.Process(pid)
        self.interval = interval
        self.samples: list[tuple[float, int]] = []
        self.halt = threading.Event()

    def run(self) -> None:
        while not self.halt.is_set():
            try:
                self.samples.append((time.monotonic(), self.proc.memory_info().rss))
            except psutil.Error:
                return
            self.halt.wait(self.interval)

    def finish(self) -> list[tuple[float, int]]:
        self.halt.set()
        self.join()
        self.samples.append((time.monotonic(), self.proc.memory_info().rss))
        return self.samples


@dataclass
class RunFigures:
    label: str
    items: int
    wall_s: float
    status: str
    errors: int
    rss_start: int
    rss_peak_run: int
    rss_peak_finalize: int
    rss_end: int
    finalize_s: float | None
    extra: dict[str, str] = field(default_factory=dict)

    @property
    def rss_peak(self) -> int:
        return max(self.rss_peak_run, self.rss_peak_finalize)

    def line(self) -> str:
        fin = "-" if self.finalize_s is None else f"{self.finalize_s:7.2f}"
        return (
            f"{self.label:<10} {self.items:>8} {self.wall_s:>8.1f} {self.items / self.wall_s:>8.1f} "
            f"{self.rss_start / MIB:>9.0f} {self.rss_peak_run / MIB:>9.0f} "
            f"{self.rss_peak_finalize / MIB:>9.0f} {self.rss_peak / MIB:>9.0f} "
            f"{self.rss_end / MIB:>9.0f} {fin:>9} {self.status:<10} {self.errors:>6}"
        )


HEADER = (
    f"{'run':<10} {'items':>8} {'wall s':>8} {'items/s':>8} {'RSS0 MiB':>9} {'pk run':>9} "
    f"{'pk final':>9} {'peak':>9} {'end MiB':>9} {'final s':>9} {'status':<10} {'errors':>6}"
)


def finalize_seconds(database_url: str, experiment_id: str) -> float | None:
    """completed_at - the last item's finished_at: the finalizer's work (plus its queue wait)."""
    with psycopg.connect(plain_url(database_url)) as conn:
        row = conn.execute(
            "SELECT extract(epoch FROM e.completed_at - max(i.finished_at)) FROM experiments e "
            "JOIN experiment_items i ON i.experiment_id = e.id WHERE e.id = %s GROUP BY e.completed_at",
            (experiment_id,),
        ).fetchone()
    return None if row is None or row[0] is None else float(row[0])


def run_experiment(
    client: Client, state: StackState, label: str, body: dict[str, Any], n: int
) -> tuple[RunFigures, str]:
    sampler = RssSampler(coordinator_pid())
    sampler.start()
    started = time.monotonic()
    accepted = client.start_experiment(**body).model_dump()
    all_done_at: float | None = None
    while True:
        experiment = client.get_experiment(accepted["id"]).model_dump()
        progress = experiment["progress"]
        if all_done_at is None and progress["done"] >= progress["total"]:
            all_done_at = time.monotonic()
        if experiment["status"] in ("completed", "failed", "cancelled"):
            break
        time.sleep(0.5)
    wall = time.monotonic() - started
    samples = sampler.finish()
    split = all_done_at if all_done_at is not None else samples[-1][0]
    run_part = [rss for t, rss in samples if t <= split] or [samples[0][1]]
    final_part = [rss for t, rss in samples if t > split] or [run_part[-1]]
    figures = RunFigures(
        label=label,
        items=n,
        wall_s=wall,
        status=experiment["status"],
        errors=progress["errors"],
        rss_start=samples[0][1],
        rss_peak_run=max(run_part),
        rss_peak_finalize=max(final_part),
        rss_end=samples[-1][1],
        finalize_s=finalize_seconds(state.database_url, accepted["id"]),
    )
    if experiment["status"] != "completed":
        figures.extra["error"] = str(experiment.get("error"))
    return figures, accepted["id"]


def fetch_reports(client: Client, experiment_id: str) -> str:
    """Peak coordinator RSS while it serves the three report formats and an /items page."""
    sampler = RssSampler(coordinator_pid(), interval=0.1)
    before = psutil.Process(coordinator_pid()).memory_info().rss
    sampler.start()
    sizes = []
    started = time.monotonic()
    for fmt in ("md", "junit", "json"):
        t0 = time.monotonic()
        body = client.report_text(experiment_id, fmt)
        sizes.append(f"{fmt} {len(body) / MIB:.1f}MiB {time.monotonic() - t0:.1f}s")
    client.items_page(experiment_id, limit=1000)
    wall = time.monotonic() - started
    peak = max(rss for _, rss in sampler.finish())
    return (
        f"reports: RSS before {before / MIB:.0f}MiB peak {peak / MIB:.0f}MiB over {wall:.1f}s "
        f"({'; '.join(sizes)})"
    )


def post_comparison(client: Client, baseline_id: str, candidate_id: str) -> str:
    """Peak coordinator RSS while it answers ``POST /comparisons`` for two finished runs."""
    pid = coordinator_pid()
    before = psutil.Process(pid).memory_info().rss
    sampler = RssSampler(pid, interval=0.1)
    sampler.start()
    started = time.monotonic()
    report = client.compare(baseline_id, candidate_id).report
    wall = time.monotonic() - started
    peak = max(rss for _, rss in sampler.finish())
    metrics = len(report.metrics)
    return (
        f"POST /comparisons: RSS before {before / MIB:.0f}MiB peak {peak / MIB:.0f}MiB "
        f"(+{(peak - before) / MIB:.0f}MiB) in {wall:.1f}s, {metrics} metrics"
    )


def start_stack() -> tuple[Client, StackState]:
    launcher.down(STATE)
    state = launcher.up(STATE)
    return Client(state.api_url, state.api_key, timeout_s=1800), state


def restart_coordinator() -> None:
    launcher.restart_service("coordinator", state_dir=STATE)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    parser.add_argument("--sizes", default="1000,10000,100000", help="Comma-separated item counts")
    parser.add_argument("--concurrency", type=int, default=200, help="Experiment concurrency")
    parser.add_argument("--target", choices=("search", "http"), default="search")
    parser.add_argument("--search-limit", type=int, default=3, help="Hits per query")
    parser.add_argument(
        "--no-cache", dest="cache", action="store_false", help="Make the search-proxy search every query"
    )
    parser.add_argument("--baseline", action="store_true", help="Run each size twice, comparing")
    parser.add_argument("--reports", action="store_true", help="Fetch the reports after each size")
    parser.add_argument(
        "--compare", action="store_true", help="Then compare the two runs via POST /comparisons"
    )
    parser.add_argument("--keep-going", action="store_true", help="Leave the stack up at the end")
    args = parser.parse_args()
    args.baseline = args.baseline or args.compare
    sizes = [int(s) for s in args.sizes.split(",") if s.strip()]
    tgt = target(args.target, args.search_limit, args.cache)
    print(
        f"# coordinator memory — sizes {sizes}, C={args.concurrency}, target {tgt}, "
        f"{os.cpu_count()} cores (shared: times are indicative)",
        flush=True,
    )
    try:
        client, state = start_stack()
        print(HEADER, flush=True)
        for n in sizes:
            dataset = f"memory-{n}"
            push(client, dataset, n)
            restart_coordinator()
            body = {
                "name": f"memory-{n}",
                "dataset": dataset,
                "concurrency": args.concurrency,
                "timeout_s": 60,
                "target": tgt,
            }
            figures, first_id = run_experiment(client, state, "single", body, n)
            print(figures.line(), figures.extra or "", flush=True)
            if args.baseline:
                restart_coordinator()
                candidate = body | {"name": f"memory-{n}-cand", "baseline_id": first_id}
                figures, candidate_id = run_experiment(client, state, "+baseline", candidate, n)
                print(figures.line(), figures.extra or "", flush=True)
                if args.compare:
                    restart_coordinator()
                    print(f"{'':<10} {n:>8} {post_comparison(client, first_id, candidate_id)}", flush=True)
            if args.reports:
                restart_coordinator()
                print(f"{'':<10} {n:>8} {fetch_reports(client, first_id)}", flush=True)
    finally:
        if not args.keep_going:
            launcher.down(STATE)


if __name__ == "__main__":
    main()
