"""Benchmark: latency-bound targets. Yardstick against the ideal N·L/C and an in-process peer.

Prints figures; asserts nothing. `make bench` runs it (`--quick` for a short pass). Uses its own
stack with default settings (state in .yardstick-bench/latency, ports 9000+, NATS 14522).

The target is a local HTTP server (aiohttp, its own process) that sleeps L and answers a
drive-thru-shaped JSON order: it costs ~0 CPU, like an LLM call seen from the client. For each
(N, L, C):
- **Yardstick**: push N items, run an experiment on the `http` target with concurrency C and the
  evaluators order_correctness, tool_call_accuracy, no_hallucinated_items, through the API; wall time
  from POST /experiments to `completed` (finalization included);
- **peer**: the same items, calls (aiohttp, C at a time) and evaluators in one process through
  Langfuse's `run_experiment(max_concurrency=C)`, tracing off;
- efficiency = ideal / wall (ideal = N·L/C; none at L = 0, where items/s is shown instead).
At L = 0 it also prints CPU milliseconds per item spent by each process: the coordinator, each eval
worker, nats-server and PostgreSQL (all its backends), from psutil's CPU times before and after.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import multiprocessing
import os
import socket
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import psutil
import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("YARDSTICK_HOME", str(ROOT / ".yardstick-bench" / "latency"))
os.environ.setdefault("YARDSTICK_PORT_BASE", "9000")
os.environ.setdefault("YARDSTICK_NATS_PORT", "14522")
os.environ.setdefault("LOG_LEVEL", "WARNING")

from services.stack import launcher  # noqa: E402
from services.stack.state import StackState  # noqa: E402
from yardstick.client import Client  # noqa: E402

STATE = Path(os.environ["YARDSTICK_HOME"])
EVALUATORS = ["order_correctness", "tool_call_accuracy", "no_hallucinated_items"]
DATASET = yaml.safe_load((ROOT / "datasets/drive-thru/order-correctness-v1.yaml").read_text())["items"]
ANSWER = {
    "response": "Added one Big Mac. Anything else?",
    "order_items": [
        {"item_id": "big-mac", "name": "Big Mac", "quantity": 1, "size": "regular", "modifiers": []}
    ],
    "tool_calls": [{"name": "add_to_order", "args": {"item_id": "big-mac", "quantity": 1}}],
    "latency_ms": 0.0,
}
CASES = [(1000, 100, 50), (2000, 1000, 200), (3000, 0, 100)]
QUICK = [(300, 100, 50), (400, 1000, 200), (600, 0, 100)]


# ---- the sleep server (a process of its own) -------------------------------------------------


def serve(port: int) -> None:
    from aiohttp import web

    async def answer(request: web.Request) -> web.Response:
        await request.read()
        await asyncio.sleep(float(request.query.get("ms", "0")) / 1000.0)
        return web.json_response(ANSWER)

    app = web.Application()
    app.router.add_post("/answer", answer)
    web.run_app(app, host="127.0.0.1", port=port, print=None, access_log=None, backlog=4096)


def start_server() -> tuple[multiprocessing.Process, int]:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = int(s.getsockname()[1])
    proc = multiprocessing.Process(target=serve, args=(port,), daemon=True)
    proc.start()
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return proc, port
        except OSError:
            time.sleep(0.05)
    raise RuntimeError("the sleep server did not start")


# ---- Yardstick through its API ----------------------------------------------------------------


def items(n: int) -> list[dict[str, Any]]:
    return [{**DATASET[i % len(DATASET)], "id": f"lat-{i:06d}"} for i in range(n)]


def push(client: Client, name: str, n: int) -> None:
    batch = items(n)
    for start in range(0, n, 20_000):
        client.push_dataset(name, batch[start : start + 20_000], kind="drive_thru", replace=start == 0)


def yardstick_run(client: Client, dataset: str, port: int, latency_ms: int, concurrency: int) -> float:
    body = {
        "name": f"latency-{latency_ms}ms-c{concurrency}",
        "dataset": dataset,
        "concurrency": concurrency,
        "timeout_s": 60,
        "target": {
            "kind": "http",
            "url": f"http://127.0.0.1:{port}/answer?ms={latency_ms}",
            "body_template": {"utterance": "{input.customer_utterance}"},
        },
        "evaluators": EVALUATORS,
        "run_evaluators": [],
    }
    started = time.perf_counter()
    accepted = client.start_experiment(**body)
    experiment = client.wait(accepted.id, timeout_s=3600).model_dump()  # its event stream, as the CLI
    wall = time.perf_counter() - started
    if experiment["status"] != "completed" or experiment["progress"]["errors"]:
        print(f"  ! {body['name']}: {experiment['status']}, {experiment['progress']['errors']} errors")
    return wall


# ---- the in-process peer ------------------------------------------------------------------------


def peer_run(n: int, port: int, latency_ms: int, concurrency: int) -> float:
    import aiohttp
    from langfuse import Langfuse

    from shared.evaluators.loading import process_registry

    url = f"http://127.0.0.1:{port}/answer?ms={latency_ms}"
    session: aiohttp.ClientSession | None = None

    async def task(*, item: Any, **_: Any) -> dict[str, Any]:
        nonlocal session
        if session is None:
            session = aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=concurrency))
        async with session.post(url, json={"utterance": item["input"]["customer_utterance"]}) as response:
            result: dict[str, Any] = await response.json()
            return result

    def evaluator(name: str) -> Any:
        fn = process_registry().get(name).fn

        def evaluate(
            *, input: Any, output: Any, expected_output: Any, metadata: Any, **_: Any
        ) -> dict[str, Any]:
            e = fn(input=input, output=output, expected_output=expected_output, metadata=metadata or {})
            return {"name": e.name, "value": e.value, "comment": e.comment}

        return evaluate

    logging.getLogger("langfuse").setLevel(logging.CRITICAL)  # "no public key": tracing is off on purpose
    logging.getLogger("asyncio").setLevel(logging.CRITICAL)  # its session outlives run_experiment's loop
    data = [
        {"input": i["input"], "expected_output": i.get("expected_output"), "metadata": {}} for i in items(n)
    ]
    client = Langfuse(tracing_enabled=False)
    started = time.perf_counter()
    client.run_experiment(
        name="peer",
        data=data,
        task=task,
        evaluators=[evaluator(name) for name in EVALUATORS],
        max_concurrency=concurrency,
    )
    return time.perf_counter() - started


# ---- CPU per process ----------------------------------------------------------------------------


def _cpu(proc: psutil.Process) -> float:
    try:
        times = proc.cpu_times()
        return float(times.user + times.system)
    except psutil.Error:
        return 0.0


def stack_processes(state: StackState) -> dict[str, list[psutil.Process]]:
    groups: dict[str, list[psutil.Process]] = {}
    for record in state.processes:
        if record.name == "coordinator" or record.name.startswith("evaluator"):
            groups[record.name] = [psutil.Process(record.pid)]
    nats_port = os.environ["YARDSTICK_NATS_PORT"]
    groups["nats-server"] = [
        p
        for p in psutil.process_iter(["name", "cmdline"])
        if p.info["name"] == "nats-server" and nats_port in " ".join(p.info["cmdline"] or [])
    ]
    if state.postgres_data:
        pid = int((Path(state.postgres_data) / "postmaster.pid").read_text().split()[0])
        master = psutil.Process(pid)
        groups["postgres"] = [master, *master.children(recursive=True)]
    return groups


def cpu_snapshot(groups: dict[str, list[psutil.Process]]) -> dict[str, float]:
    return {name: sum(_cpu(p) for p in procs) for name, procs in groups.items()}


# ---- the table ----------------------------------------------------------------------------------


@dataclass
class Row:
    n: int
    latency_ms: int
    concurrency: int
    yardstick_s: float
    peer_s: float

    def line(self) -> str:
        ideal = self.n * self.latency_ms / 1000 / self.concurrency
        if self.latency_ms:
            ys = f"{self.yardstick_s:7.1f} s ({ideal / self.yardstick_s:4.0%})"
            peer = f"{self.peer_s:7.1f} s ({ideal / self.peer_s:4.0%})"
            ideal_text = f"{ideal:5.1f} s"
        else:
            ys = f"{self.yardstick_s:7.1f} s ({self.n / self.yardstick_s:5.0f}/s)"
            peer = f"{self.peer_s:7.1f} s ({self.n / self.peer_s:5.0f}/s)"
            ideal_text = "    -  "
        ratio = self.peer_s / self.yardstick_s
        return (
            f"| {self.n:>6,} | {self.latency_ms:>5} ms | {self.concurrency:>4} | {ideal_text} "
            f"| {ys} | {peer} | {ratio:4.2f}x |"
        )


HEADER = (
    "|      N |       L |    C |  ideal  | Yardstick (efficiency)   | peer (efficiency)        | "
    "Yardstick/peer |\n|---|---|---|---|---|---|---|"
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="Fewer items (a smoke run)")
    parser.add_argument("--keep", action="store_true", help="Leave the stack up afterwards")
    args = parser.parse_args()
    cases = QUICK if args.quick else CASES
    server, port = start_server()
    print(
        f"# latency-bound targets — {os.cpu_count()} cores; default stack settings; sleep server on :{port}"
    )
    launcher.down(STATE)
    state = launcher.up(STATE)
    client = Client(state.api_url, state.api_key, timeout_s=600)
    rows: list[Row] = []
    cpu_lines: list[str] = []
    try:
        for n, latency_ms, concurrency in cases:
            dataset = f"latency-{n}"
            push(client, dataset, n)
            groups = stack_processes(state)
            before = cpu_snapshot(groups)
            ys = yardstick_run(client, dataset, port, latency_ms, concurrency)
            after = cpu_snapshot(groups)
            if latency_ms == 0:
                per_item = {name: (after[name] - before[name]) * 1000 / n for name in before}
                cpu_lines = [f"  {name:<12} {ms:6.2f} ms/item" for name, ms in sorted(per_item.items())]
            peer = peer_run(n, port, latency_ms, concurrency)
            rows.append(Row(n, latency_ms, concurrency, ys, peer))
            print(
                f"  done: N={n} L={latency_ms}ms C={concurrency}: Yardstick {ys:.1f}s, peer {peer:.1f}s",
                flush=True,
            )
    finally:
        if not args.keep:
            launcher.down(STATE)
        server.terminate()
    print(HEADER)
    for row in rows:
        print(row.line())
    if cpu_lines:
        print("\nCPU per item at L = 0 (user + system):")
        print("\n".join(cpu_lines))


if __name__ == "__main__":
    main()
