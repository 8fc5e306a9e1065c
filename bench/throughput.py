"""Benchmark: Yardstick's full stack vs ideal and vs Langfuse's in-process run_experiment.

Prints figures; asserts nothing. Run: `make bench` (or `.venv/bin/python bench/throughput.py`).
Uses its own stack (state in .yardstick-bench, ports 8800+/14322) so it never touches a dev stack.

1. items/s and wall time for N items (default 1,000) with the offline agent, concurrency 1/10/50,
   with 1 and 2 eval workers;
2. efficiency against the ideal C/L with the agent's simulated latency (L=100 ms, C=50);
3. platform overhead per item: (worker finished - coordinator dispatched) - time inside the agent;
4. coordinator peak RSS over a large experiment (--rss-items, default 100,000) on the offline agent;
5. the same items and agent task through Langfuse's run_experiment in-process (tracing off).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import threading
import time
from pathlib import Path
from typing import Any

import psutil
import psycopg
import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("YARDSTICK_HOME", str(ROOT / ".yardstick-bench"))
os.environ.setdefault("YARDSTICK_PORT_BASE", "8800")
os.environ.setdefault("YARDSTICK_NATS_PORT", "14322")
os.environ.setdefault("EVAL_CONCURRENCY", "64")  # per worker process: the experiment's C is the limit
os.environ.setdefault("INVOKE_MAX_WORKERS", "64")  # per agent process
os.environ.setdefault("LOG_LEVEL", "WARNING")

from services.stack import launcher  # noqa: E402
from services.stack.state import StackState  # noqa: E402
from shared.db.session import plain_url  # noqa: E402
from yardstick.client import Client  # noqa: E402

STATE = Path(os.environ["YARDSTICK_HOME"])
UTTERANCES = [
    i["input"]["customer_utterance"]
    for i in yaml.safe_load((ROOT / "datasets/drive-thru/order-correctness-v1.yaml").read_text())["items"]
]
DATASET = yaml.safe_load((ROOT / "datasets/drive-thru/order-correctness-v1.yaml").read_text())["items"]


def items(n: int) -> list[dict[str, Any]]:
    return [{**DATASET[i % len(DATASET)], "id": f"bench-{i:06d}"} for i in range(n)]


def push(client: Client, name: str, n: int) -> None:
    batch = items(n)
    for start in range(0, n, 20_000):
        client.push_dataset(name, batch[start : start + 20_000], kind="drive_thru", replace=start == 0)


def run(
    client: Client,
    dataset: str,
    concurrency: int,
    latency_ms: float = 0.0,
    evaluators: list[str] | None = None,
) -> tuple[dict[str, Any], float]:
    body = {
        "name": f"bench-c{concurrency}",
        "dataset": dataset,
        "concurrency": concurrency,
        "timeout_s": 60,
        "target": {
            "kind": "agent",
            "model": {"provider": "offline", "offline": {"simulated_latency_ms": latency_ms}},
        },
        "evaluators": evaluators or ["order_correctness", "tool_call_accuracy", "no_hallucinated_items"],
        "run_evaluators": [],
    }
    started = time.perf_counter()
    accepted = client.start_experiment(**body)
    while True:
        experiment = client.get_experiment(accepted.id).model_dump()
        if experiment["status"] in ("completed", "failed"):
            return experiment, time.perf_counter() - started
        time.sleep(0.05)


def overhead_ms(database_url: str, experiment_id: str) -> tuple[float, float]:
    """Per item: (finished_at - dispatched_at) - the agent's own latency_ms; p50, p95."""
    with psycopg.connect(plain_url(database_url)) as conn:
        rows = conn.execute(
            "SELECT extract(epoch FROM finished_at - dispatched_at) * 1000 - (output->>'latency_ms')::float "
            "FROM experiment_items WHERE experiment_id = %s AND status = 'ok'",
            (experiment_id,),
        ).fetchall()
    values = sorted(float(r[0]) for r in rows)
    return statistics.median(values), values[int(0.95 * (len(values) - 1))]


def coordinator_pid() -> int:
    state = StackState.load(STATE)
    assert state is not None
    return next(p.pid for p in state.processes if p.name == "coordinator")


class RssSampler(threading.Thread):
    def __init__(self, pid: int) -> None:
        super().__init__(daemon=True)
        self.proc = psutil.Process(pid)
        self.samples: list[int] = []
        self.stop = threading.Event()

    def run(self) -> None:
        while not self.stop.is_set():
            self.samples.append(self.proc.memory_info().rss)
            time.sleep(0.2)


def start_stack(workers: int) -> tuple[Client, StackState]:
    launcher.down(STATE)
    os.environ["YARDSTICK_EVAL_WORKERS"] = str(workers)
    state = launcher.up(STATE)
    return Client(state.api_url, state.api_key, timeout_s=300), state


def stop_worker(state: StackState, name: str) -> None:
    """Leave one eval worker: SIGTERM the other (it drains and exits)."""
    proc = psutil.Process(next(p.pid for p in state.processes if p.name == name))
    proc.terminate()
    proc.wait(60)


def langfuse_peer(n: int, concurrency: int, latency_ms: float) -> float:
    """Same agent task in-process through Langfuse's run_experiment; returns items/s."""
    from langfuse import Langfuse

    from services.agent.invoke import invoke_agent
    from services.agent.runtime import AgentRuntime
    from services.agent.settings import AgentSettings
    from shared.contracts import AgentInvokeRequest, ModelConfig, OfflineBehaviour
    from shared.evaluators.drive_thru import order_correctness

    state = StackState.load(STATE)
    assert state is not None
    runtime = AgentRuntime.from_settings(AgentSettings(database_url=state.database_url))  # type: ignore[call-arg]
    model = ModelConfig(offline=OfflineBehaviour(simulated_latency_ms=latency_ms))

    async def task(*, item: Any, **_: Any) -> dict[str, Any]:
        response = await invoke_agent(
            AgentInvokeRequest(customer_utterance=item["input"]["customer_utterance"], model=model), runtime
        )
        return response.model_dump(mode="json")

    client = Langfuse(
        tracing_enabled=False, public_key="pk-offline", secret_key="sk-offline", host="http://127.0.0.1:9"
    )
    data = items(n)
    started = time.perf_counter()
    client.run_experiment(
        name="peer", data=data, task=task, evaluators=[order_correctness], max_concurrency=concurrency
    )
    return n / (time.perf_counter() - started)


LATENCY_MS = 100.0


def simulated_latency(client: Client, state: StackState, n: int) -> None:
    """The simulated L=100 ms, C=50 case: efficiency against the ideal N·L/C."""
    experiment, wall = run(client, "bench", 50, latency_ms=LATENCY_MS)
    ideal = n / (50 / (LATENCY_MS / 1000))
    p50, p95 = overhead_ms(state.database_url, experiment["id"])
    print(
        f"simulated L=100ms C=50: wall={wall:.2f}s ideal={ideal:.2f}s efficiency={ideal / wall:.0%}  "
        f"overhead p50={p50:.1f}ms p95={p95:.1f}ms"
    )


def latency_case(n: int) -> None:
    """``--case latency``: one eval worker, the simulated-latency case, then its in-process peer."""
    try:
        client, state = start_stack(1)
        push(client, "bench", n)
        simulated_latency(client, state, n)
        rate = langfuse_peer(n, 50, LATENCY_MS)
        print(f"langfuse run_experiment in-process C=50 L={LATENCY_MS:.0f}ms: {rate:7.1f} items/s")
    finally:
        launcher.down(STATE)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--items", type=int, default=1000)
    parser.add_argument("--rss-items", type=int, default=100_000)
    parser.add_argument("--skip-rss", action="store_true")
    parser.add_argument(
        "--case",
        choices=["all", "latency"],
        default="all",
        help="latency: only the simulated L=100ms C=50 case on one eval worker, and its in-process peer",
    )
    args = parser.parse_args()
    print(f"# Yardstick benchmark — {args.items} items, offline agent, {os.cpu_count()} cores")
    if args.case == "latency":
        latency_case(args.items)
        return
    try:
        client, state = start_stack(2)
        push(client, "bench", args.items)
        for workers in (2, 1):
            if workers == 1:
                stop_worker(state, "evaluator-1")
            for concurrency in (1, 10, 50):
                experiment, wall = run(client, "bench", concurrency)
                p50, p95 = overhead_ms(state.database_url, experiment["id"])
                rate = args.items / wall
                print(
                    f"workers={workers} C={concurrency:<3} wall={wall:6.2f}s {rate:7.1f} items/s "
                    f"overhead p50={p50:5.1f}ms p95={p95:5.1f}ms errors={experiment['progress']['errors']}"
                )
        latency = LATENCY_MS  # back to 1 worker here: the simulated-latency run is not CPU-bound
        simulated_latency(client, state, args.items)
        for concurrency, lat in ((50, 0.0), (50, latency)):
            rate = langfuse_peer(args.items, concurrency, lat)
            print(f"langfuse run_experiment in-process C={concurrency} L={lat:.0f}ms: {rate:7.1f} items/s")
        if not args.skip_rss:
            push(client, "bench-rss", args.rss_items)
            sampler = RssSampler(coordinator_pid())
            sampler.start()
            experiment, wall = run(client, "bench-rss", 200, evaluators=["no_hallucinated_items"])
            sampler.stop.set()
            sampler.join()
            mib = [s / 2**20 for s in sampler.samples]
            print(
                f"RSS {args.rss_items} items C=200: coordinator start={mib[0]:.0f}MiB peak={max(mib):.0f}MiB "
                f"end={mib[-1]:.0f}MiB; wall={wall:.1f}s ({args.rss_items / wall:.0f} items/s), "
                f"status={experiment['status']}"
            )
    finally:
        launcher.down(STATE)


if __name__ == "__main__":
    main()
