"""Benchmark: the same experiments on `stack up` (one nats-server, one PostgreSQL) and on
`stack up --ha` (three nats-server nodes with R3 streams, a PostgreSQL primary with a synchronous
standby), one after the other in the same run, with the same settings.

Prints figures; asserts nothing. `make bench` runs it (`--items` for a shorter pass). Uses its own
stacks (state in .yardstick-bench/ha/{single,ha}, services on ports 9200+, NATS on 14722+2, routes
14742+2, PostgreSQL 15532+1) so it never touches a dev stack. Two eval workers; the offline agent.

For each stack:
1. latency: per-item platform overhead (worker finished - coordinator dispatched - time inside the
   agent), p50 and p95, of a small experiment (--latency-items, default 200, concurrency 10);
2. throughput: items/s of --items (default 1,000) at concurrency 50 with a 0 ms agent, and the
   efficiency (ideal N·L/C over wall time) at L = 100 ms;
3. how long `stack up` took.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
HOME = Path(os.environ.get("YARDSTICK_BENCH_HA_HOME", str(ROOT / ".yardstick-bench" / "ha")))
os.environ.setdefault("YARDSTICK_HOME", str(HOME / "single"))  # what bench.throughput reads on import
os.environ.setdefault("YARDSTICK_PORT_BASE", "9200")
os.environ.setdefault("YARDSTICK_NATS_PORT", "14722")
os.environ.setdefault("YARDSTICK_NATS_CLUSTER_PORT", "14742")
os.environ.setdefault("YARDSTICK_PG_PORT", "15532")
os.environ.setdefault("YARDSTICK_EVAL_WORKERS", "2")

from bench.throughput import overhead_ms, push, run  # noqa: E402
from services.stack import launcher  # noqa: E402
from yardstick.client import Client  # noqa: E402

CONCURRENCY = 50
LATENCY_MS = 100.0
LATENCY_CONCURRENCY = 10


@dataclass
class Figures:
    stack: str
    up_s: float
    overhead_p50_ms: float
    overhead_p95_ms: float
    rate_0ms: float
    efficiency_100ms: float
    errors: int

    def line(self) -> str:
        return (
            f"| {self.stack} | {self.up_s:.0f} s "
            f"| {self.overhead_p50_ms:.1f} ms / {self.overhead_p95_ms:.1f} ms "
            f"| {self.rate_0ms:.0f} items/s | {self.efficiency_100ms:.1%} | {self.errors} |"
        )


def measure(stack: str, ha: bool, items: int, latency_items: int) -> Figures:
    state_dir = HOME / stack
    launcher.down(state_dir)
    started = time.perf_counter()
    state = launcher.up(state_dir, ha=ha)
    up_s = time.perf_counter() - started
    client = Client(state.api_url, state.api_key, timeout_s=300)
    try:
        push(client, "bench-ha-latency", latency_items)
        small, _ = run(client, "bench-ha-latency", LATENCY_CONCURRENCY)
        p50, p95 = overhead_ms(state.database_url, small["id"])
        push(client, "bench-ha", items)
        fast, wall_0 = run(client, "bench-ha", CONCURRENCY)
        slow, wall_100 = run(client, "bench-ha", CONCURRENCY, latency_ms=LATENCY_MS)
        ideal = items * LATENCY_MS / 1000 / CONCURRENCY
        errors = sum(int(e["progress"]["errors"]) for e in (small, fast, slow))
        figures = Figures(stack, up_s, p50, p95, items / wall_0, ideal / wall_100, errors)
        print(f"  done: {figures.line()}", flush=True)
        return figures
    finally:
        launcher.down(state_dir)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    parser.add_argument("--items", type=int, default=1000, help="Items of the throughput runs")
    parser.add_argument("--latency-items", type=int, default=200, help="Items of the latency run")
    args = parser.parse_args()
    print(
        f"# single node vs HA — {os.cpu_count()} cores, offline agent, 2 eval workers; overhead of "
        f"{args.latency_items} items at C={LATENCY_CONCURRENCY}; {args.items} items at C={CONCURRENCY}"
    )
    rows = [
        measure("single", False, args.items, args.latency_items),
        measure("ha", True, args.items, args.latency_items),
    ]
    print(
        "| stack | stack up | overhead p50 / p95 | L = 0 ms | efficiency at L = 100 ms | errors |\n"
        "|---|---|---|---|---|---|"
    )
    for row in rows:
        print(row.line())


if __name__ == "__main__":
    main()
