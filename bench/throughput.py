"""Benchmark: Yardstick's full stack vs ideal and vs Langfuse's in-process run_experiment.

Prints figures; asserts nothing. Run: `make bench` (or `.venv/bin/python bench/throughput.py`).
Uses its own stack (state in .yardstick-bench, ports 8800+/14322) so it never touches a dev stack.

1. items/s and wall time for N items (default 1,000) with the offline agent, concurrency 1/10/50,
   with 1 and 2 eval workers;
2. efficiency against the ideal C/L with the agent's simulated latency (L=100 ms, C=50);
3. platform overhead per item: (worker finished - coordinator dispatched) - time inside the agent;
4. coordinator peak RSS over a large experiment (--rss-items, default 100,000) on the offline agent;
5. the same items and agent task through Langfuse's run_experiment in-process (tracing off);
6. `c2000` (issue 27): 20,000 items against a 1 s HTTP target (bench/latency.py's sleep server) at
   C = 2,000 on the default stack: wall, % of the ideal N·L/C, peak RSS of the coordinator and of
   each eval worker;
7. `zero` (issue 27): 3,000 items against the same target at 0 ms, C = 100 on the default stack:
   items/s, CPU ms per item of each process (coordinator, workers, nats-server, PostgreSQL), and the
   in-process peer (Langfuse's run_experiment over aiohttp) measured in the same run.

The issue-37 cases (`http100ms`, `zero`, `c2000`) print each figure beside its goal and the peer's
figure of the same run, MET or NOT MET: 1,000 x 100 ms at C = 50 >= 1.0x the peer, 3,000 x 0 ms at
C = 100 >= 0.8x the peer, 20,000 x 1 s at C = 2,000 >= 90 % of the ideal, and the CPU per item of
every process summed <= 1.2 ms; and the load average when the case started (the machine is shared).

`--case NAME` runs one of: offline (1-5 without 4), rss (4), c2000, zero; default: all.
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
os.environ.setdefault("LOG_LEVEL", "WARNING")
# The offline cases ran with these per process (the experiment's C is the limit); c2000 and zero
# run the default stack's own settings.
OFFLINE_ENV = {"EVAL_CONCURRENCY": "64", "INVOKE_MAX_WORKERS": "64"}

from bench import latency  # noqa: E402
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
    experiment = client.wait(accepted.id, timeout_s=3600).model_dump()  # its event stream, as the CLI
    return experiment, time.perf_counter() - started


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
            try:
                self.samples.append(self.proc.memory_info().rss)
            except psutil.Error:
                return
            time.sleep(0.2)

    def peak_mib(self) -> float:
        return max(self.samples, default=0) / 2**20


def start_stack(workers: int, env: dict[str, str] | None = None) -> tuple[Client, StackState]:
    """A fresh stack with ``workers`` eval workers; ``env`` set for its processes (and anything the
    offline cases set before removed, so that the issue-27 cases run the defaults)."""
    launcher.down(STATE)
    for name in OFFLINE_ENV:
        os.environ.pop(name, None)
    os.environ.update(env or {})
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
    from shared.evaluators.drive_thru import order_correctness
    from yardstick.api.agent_messages import AgentInvokeRequest, ModelConfig, OfflineBehaviour

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


def offline_cases(n: int) -> None:
    client, state = start_stack(2, OFFLINE_ENV)
    push(client, "bench", n)
    for workers in (2, 1):
        if workers == 1:
            stop_worker(state, "evaluator-1")
        for concurrency in (1, 10, 50):
            experiment, wall = run(client, "bench", concurrency)
            p50, p95 = overhead_ms(state.database_url, experiment["id"])
            print(
                f"workers={workers} C={concurrency:<3} wall={wall:6.2f}s {n / wall:7.1f} items/s "
                f"overhead p50={p50:5.1f}ms p95={p95:5.1f}ms errors={experiment['progress']['errors']}"
            )
    simulated_latency(client, state, n)
    rate = langfuse_peer(n, 50, 0.0)
    print(f"langfuse run_experiment in-process C=50 L=0ms: {rate:7.1f} items/s")


LATENCY_MS = 100.0


def simulated_latency(client: Client, state: StackState, n: int) -> None:
    """The simulated L=100 ms, C=50 case on the offline agent: efficiency against the ideal N·L/C,
    then the same through Langfuse's run_experiment in process."""
    experiment, wall = run(client, "bench", 50, latency_ms=LATENCY_MS)
    ideal = n / (50 / (LATENCY_MS / 1000))
    p50, p95 = overhead_ms(state.database_url, experiment["id"])
    print(
        f"simulated L=100ms C=50: wall={wall:.2f}s ideal={ideal:.2f}s efficiency={ideal / wall:.0%}  "
        f"overhead p50={p50:.1f}ms p95={p95:.1f}ms"
    )
    rate = langfuse_peer(n, 50, LATENCY_MS)
    print(f"langfuse run_experiment in-process C=50 L={LATENCY_MS:.0f}ms: {rate:7.1f} items/s")


def latency_case(n: int) -> None:
    """``--case latency``: one eval worker, the simulated-latency case and its in-process peer."""
    client, state = start_stack(1, OFFLINE_ENV)
    push(client, "bench", n)
    simulated_latency(client, state, n)


def rss_case(n: int) -> None:
    client, _ = start_stack(2, OFFLINE_ENV)
    push(client, "bench-rss", n)
    sampler = RssSampler(coordinator_pid())
    sampler.start()
    experiment, wall = run(client, "bench-rss", 200, evaluators=["no_hallucinated_items"])
    sampler.stop.set()
    sampler.join()
    mib = [s / 2**20 for s in sampler.samples]
    print(
        f"RSS {n} items C=200: coordinator start={mib[0]:.0f}MiB peak={max(mib):.0f}MiB "
        f"end={mib[-1]:.0f}MiB; wall={wall:.1f}s ({n / wall:.0f} items/s), "
        f"status={experiment['status']}"
    )


CPU_GOAL_MS = 1.2
"""Issue 37: CPU per item summed over every process of the stack."""


def verdict(met: bool) -> str:
    return "MET" if met else "NOT MET"


def http_case(n: int, latency_ms: int, concurrency: int, *, peer: bool, goal: float) -> None:
    """N items against the sleep server at L, C on the default stack (two workers, defaults); each
    figure printed beside its goal (issue 37) and the in-process peer measured in the same run:
    ``goal`` is the Yardstick/peer ratio to reach with a peer, else the share of the ideal N·L/C."""
    server, port = latency.start_server()
    try:
        client, state = start_stack(2)
        dataset = f"http-{n}"
        latency.push(client, dataset, n)
        groups = latency.stack_processes(state)
        samplers = {
            p.name: RssSampler(p.pid)
            for p in state.processes
            if p.name == "coordinator" or p.name.startswith("evaluator")
        }
        for sampler in samplers.values():
            sampler.start()
        load = os.getloadavg()[0]
        before = latency.cpu_snapshot(groups)
        wall = latency.yardstick_run(client, dataset, port, latency_ms, concurrency)
        after = latency.cpu_snapshot(groups)
        for sampler in samplers.values():
            sampler.stop.set()
            sampler.join()
        rss = ", ".join(f"{name} {sampler.peak_mib():.0f} MiB" for name, sampler in samplers.items())
        head = f"{n:,} x {latency_ms:,} ms, C={concurrency:,}:"
        ideal = n * latency_ms / 1000 / concurrency
        mine = (
            f"{ideal / wall:.0%} of the ideal {ideal:.1f} s ({wall:.1f} s)"
            if latency_ms
            else f"{n / wall:,.0f} items/s"
        )
        if peer:
            peer_s = latency.peer_run(n, port, latency_ms, concurrency)
            theirs = f"{ideal / peer_s:.0%} ({peer_s:.1f} s)" if latency_ms else f"{n / peer_s:,.0f} items/s"
            ratio = peer_s / wall
            print(
                f"{head} {mine}, peer {theirs}, {ratio:.2f}x (goal >= {goal:.1f}x) {verdict(ratio >= goal)}"
            )
        else:
            share = ideal / wall
            print(f"{head} {mine}, peer - (goal >= {goal:.0%} of the ideal) {verdict(share >= goal)}")
        cpu = {name: (after[name] - before[name]) * 1000 / n for name in before}
        total = sum(cpu.values())
        print(
            "  CPU ms/item: "
            + ", ".join(f"{name} {ms:.2f}" for name, ms in sorted(cpu.items()))
            + f"; total {total:.2f} (goal <= {CPU_GOAL_MS} ms) {verdict(total <= CPU_GOAL_MS)}"
        )
        print(f"  peak RSS: {rss}; load average at the start {load:.1f}")
    finally:
        server.terminate()


CASES = ("offline", "latency", "http100ms", "http1s", "rss", "c2000", "zero")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--items", type=int, default=1000)
    parser.add_argument("--rss-items", type=int, default=100_000)
    parser.add_argument("--skip-rss", action="store_true")
    parser.add_argument("--case", choices=CASES, help="Run only this case (default: all)")
    args = parser.parse_args()
    skipped = {"latency"} | ({"rss"} if args.skip_rss else set())  # "offline" ends with the latency case
    cases = [args.case] if args.case else [c for c in CASES if c not in skipped]
    print(f"# Yardstick benchmark — {os.cpu_count()} cores; cases: {', '.join(cases)}")
    try:
        for case in cases:
            if case == "offline":
                print(f"## offline agent, {args.items} items")
                offline_cases(args.items)
            elif case == "rss":
                rss_case(args.rss_items)
            elif case == "latency":
                latency_case(args.items)
            elif case == "http100ms":
                http_case(1000, 100, 50, peer=True, goal=1.0)
            elif case == "http1s":
                http_case(2000, 1000, 200, peer=True, goal=1.0)
            elif case == "c2000":
                http_case(20_000, 1000, 2000, peer=False, goal=0.9)
            else:
                http_case(3000, 0, 100, peer=True, goal=0.8)
    finally:
        launcher.down(STATE)


if __name__ == "__main__":
    main()
