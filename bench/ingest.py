"""Benchmark: the ingest service's OTLP/HTTP receiver, spans accepted per second and its memory.

Prints figures; asserts nothing. Run: `make bench` (or `.venv/bin/python bench/ingest.py`).
Starts its own nats-server and PostgreSQL (state in .yardstick-bench-ingest, NATS on 14922, the
receiver on 8990+) and the ingest service as its own process(es), as `stack up` would. With
``NATS_URL`` set (one URL, or a cluster's nodes separated by commas, as every service takes it) it
uses those servers instead of starting one (its streams in the namespace ``bench``, replicated
``NATS_STREAM_REPLICAS`` times).

The load comes from a separate process: OTLP protobuf bodies made by the OpenTelemetry SDK's own
encoder (``encode_spans``) from four-span GenAI traces (agent, chat with messages, tool, chat), each
body as the BatchSpanProcessor would send it (512 spans by default), all made before the clock
starts, then POSTed concurrently with aiohttp. A 429/503 is retried after its Retry-After, as an
exporter would (the wait shortened tenfold, to keep the run short), and so is a connection error
(counted as answer 0). Reported:

1. spans/s accepted (200 with every span stored: JetStream acknowledged) at a few concurrencies,
   and that the stream then holds every span once;
2. the receiver's peak RSS under a flood: many concurrent large requests, far past its in-flight
   bound, with the 429s it answered.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import signal
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

from services.stack.nats_cluster import quiet_connect  # noqa: E402
from services.stack.servers import postgres_uri_for, start_nats, start_postgres  # noqa: E402
from shared.contracts.span_messages import SpanBatch  # noqa: E402
from shared.db.api_keys import create_key_sync  # noqa: E402
from shared.db.migrate import upgrade_to_head  # noqa: E402
from shared.messaging.streams import declare_at  # noqa: E402
from yardstick.api.nats_servers import nats_servers  # noqa: E402
from yardstick.api.roles import Role  # noqa: E402
from yardstick.api.topology import Topology  # noqa: E402

STATE = ROOT / ".yardstick-bench-ingest"
SECRET = "bench-secret"
NAMESPACE = "bench"
NATS_PORT = 14922
HTTP_PORT = 8990


# ---------------------------------------------------------------- the load process (separate) ---


def make_bodies(traces: int, batch: int, seed: str) -> tuple[list[bytes], int]:
    """OTLP protobuf bodies of ``batch`` spans from ``traces`` four-span traces (SDK encoder)."""
    from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    memory = InMemorySpanExporter()
    provider = TracerProvider(resource=Resource.create({"service.name": "bench-shop"}))
    provider.add_span_processor(SimpleSpanProcessor(memory))
    tracer = provider.get_tracer("bench")
    user = json.dumps([{"role": "user", "parts": [{"type": "text", "content": "Two burgers and a coke"}]}])
    answer = json.dumps([{"role": "assistant", "parts": [{"type": "text", "content": "Anything else?"}]}])
    for i in range(traces):
        with tracer.start_as_current_span("invoke_agent shop") as root:
            root.set_attributes(
                {"gen_ai.operation.name": "invoke_agent", "gen_ai.conversation.id": f"{seed}-{i}"}
            )
            for step in ("plan", "answer"):
                with tracer.start_as_current_span("chat gpt-bench") as chat:
                    chat.set_attributes(
                        {
                            "gen_ai.operation.name": "chat",
                            "gen_ai.request.model": "gpt-bench",
                            "gen_ai.input.messages": user,
                            "gen_ai.output.messages": answer,
                            "gen_ai.usage.input_tokens": 120,
                            "gen_ai.usage.output_tokens": 12,
                        }
                    )
                if step == "plan":
                    with tracer.start_as_current_span("execute_tool add_item") as tool:
                        tool.set_attributes(
                            {
                                "gen_ai.operation.name": "execute_tool",
                                "gen_ai.tool.name": "add_item",
                                "gen_ai.tool.call.arguments": '{"item": "burger", "qty": 2}',
                            }
                        )
    spans = list(memory.get_finished_spans())
    bodies = [encode_spans(spans[i : i + batch]).SerializeToString() for i in range(0, len(spans), batch)]
    return bodies, len(spans)


async def send_all(url: str, key: str, bodies: list[bytes], concurrency: int) -> dict[str, Any]:
    import aiohttp

    headers = {"Authorization": f"Bearer {key}", "Content-Type": "application/x-protobuf"}
    statuses: dict[int, int] = {}
    queue: asyncio.Queue[bytes] = asyncio.Queue()
    for body in bodies:
        queue.put_nowait(body)

    async def worker(session: aiohttp.ClientSession) -> None:
        while not queue.empty():
            body = queue.get_nowait()
            while True:
                try:
                    async with session.post(url, data=body, headers=headers) as response:
                        await response.read()
                        status, retry_after = response.status, response.headers.get("Retry-After", "1")
                except aiohttp.ClientError:  # as an exporter does: retry a connection error
                    statuses[0] = statuses.get(0, 0) + 1
                    await asyncio.sleep(0.1)
                    continue
                statuses[status] = statuses.get(status, 0) + 1
                if status == 200:
                    break
                if status not in (429, 503):
                    raise RuntimeError(f"answered {status}")
                await asyncio.sleep(float(retry_after) / 10)

    connector = aiohttp.TCPConnector(limit=concurrency)
    async with aiohttp.ClientSession(connector=connector) as session:
        started = time.perf_counter()
        await asyncio.gather(*(worker(session) for _ in range(concurrency)))
        elapsed = time.perf_counter() - started
    return {"elapsed_s": elapsed, "statuses": statuses}


def load_main(config: dict[str, Any]) -> None:
    """The load process: make the bodies (not timed), signal ready, send on stdin's go."""
    bodies, spans = make_bodies(config["traces"], config["batch"], config["seed"])
    print(
        json.dumps({"ready": True, "spans": spans, "bodies": len(bodies), "bytes": sum(map(len, bodies))}),
        flush=True,
    )
    sys.stdin.readline()
    bodies = bodies * config.get("repeat", 1)  # a flood resends: JetStream deduplicates, RSS is the point
    urls = config["urls"]
    parts = [bodies[i :: len(urls)] for i in range(len(urls))]

    async def run() -> list[dict[str, Any]]:
        return await asyncio.gather(
            *(
                send_all(f"{u}/v1/traces", config["key"], p, max(1, config["concurrency"] // len(urls)))
                for u, p in zip(urls, parts, strict=True)
            )
        )

    results = asyncio.run(run())
    statuses: dict[str, int] = {}
    for result in results:
        for status, n in result["statuses"].items():
            statuses[str(status)] = statuses.get(str(status), 0) + n
    print(
        json.dumps({"elapsed_s": max(r["elapsed_s"] for r in results), "spans": spans, "statuses": statuses}),
        flush=True,
    )


# ------------------------------------------------------------------------------ the harness ---


class Environment:
    """nats-server, PostgreSQL with the migrations, the streams, one ingest key."""

    def __init__(self) -> None:
        shutil.rmtree(STATE, ignore_errors=True)
        STATE.mkdir(parents=True)
        given = os.environ.get("NATS_URL", "")
        self.nats = None if given else start_nats(NATS_PORT, STATE / "nats", STATE / "nats.log")
        self.nats_url = given or f"nats://127.0.0.1:{NATS_PORT}"
        nats_servers(self.nats_url)  # a bad NATS_URL is named here, not in the ingest process
        uri, self.postgres_pid = start_postgres((STATE / "pg").resolve(), keep_running=True)
        import psycopg

        from shared.db.session import plain_url

        with psycopg.connect(plain_url(uri), autocommit=True) as conn:
            conn.execute("CREATE DATABASE bench")
        self.database_url = postgres_uri_for(uri, "bench")
        upgrade_to_head(self.database_url)
        self.topology = Topology(namespace=NAMESPACE)
        replicas = int(os.environ.get("NATS_STREAM_REPLICAS", "1"))  # 3 on a cluster
        asyncio.run(declare_at(self.nats_url, self.topology, replicas))
        self.key = create_key_sync(self.database_url, SECRET, "bench", Role.INGEST)

    def start(
        self, module: str, port: int, log_name: str, settings: dict[str, str] | None = None
    ) -> subprocess.Popen[bytes]:
        """``python -m module`` on this environment's servers, once its /healthz answers (killed,
        not left behind, when it does not start within 60 s)."""
        proc = self.spawn(module, port, log_name, settings)
        self.wait_healthy(proc, port, module, log_name)
        return proc

    def spawn(
        self, module: str, port: int, log_name: str, settings: dict[str, str] | None = None
    ) -> subprocess.Popen[bytes]:
        """``python -m module`` on this environment's servers, not waited for."""
        env = dict(os.environ) | {
            "NATS_URL": self.nats_url,
            "DATABASE_URL": self.database_url,
            "NATS_NAMESPACE": NAMESPACE,
            "HTTP_PORT": str(port),
            "YARDSTICK_API_KEY_SECRET": SECRET,
            "LOG_LEVEL": "WARNING",
            **(settings or {}),
        }
        log = (STATE / f"{log_name}.log").open("ab")
        return subprocess.Popen(
            [sys.executable, "-m", module], env=env, stdout=log, stderr=subprocess.STDOUT, cwd=ROOT
        )

    @staticmethod
    def wait_healthy(proc: subprocess.Popen[bytes], port: int, module: str, log_name: str) -> None:
        """Until its /healthz answers 200; killed when it does not within 60 s."""
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                if httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=1).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.1)
        proc.kill()
        proc.wait(30)
        raise RuntimeError(f"{module} on {port} did not start: see {STATE}/{log_name}.log")

    def ingest(self, port: int) -> subprocess.Popen[bytes]:
        # several processes: each its own free OTLP/gRPC port (the bench drives HTTP only)
        return self.start("services.ingest.main", port, f"ingest-{port}", {"INGEST_GRPC_PORT": "0"})

    def stored(self) -> tuple[int, int]:
        """(messages, distinct span ids) in the stream."""

        async def count() -> tuple[int, int]:
            nc = await quiet_connect(self.nats_url, 5.0)  # any node that answers, no traceback per refusal
            js = nc.jetstream()
            info = await js.stream_info(self.topology.traffic_spans_stream)
            ids: set[str] = set()
            for seq in range(info.state.first_seq, info.state.last_seq + 1):
                raw = await js.get_msg(self.topology.traffic_spans_stream, seq)
                batch = SpanBatch.model_validate_json(raw.data or b"")
                ids.update(span.span_id for _, span in batch.spans())
            await js.purge_stream(self.topology.traffic_spans_stream)
            await nc.close()
            return info.state.messages, len(ids)

        return asyncio.run(count())

    def close(self) -> None:
        if self.nats is not None:
            self.nats.terminate()
            self.nats.wait(10)
        if self.postgres_pid is not None:  # SIGINT: PostgreSQL's fast shutdown
            postgres = psutil.Process(self.postgres_pid)
            postgres.send_signal(signal.SIGINT)
            postgres.wait(30)


def rss_sampler(pids: list[int], stop: threading.Event, peak: dict[int, int]) -> None:
    procs = [psutil.Process(pid) for pid in pids]
    while not stop.is_set():
        for proc in procs:
            peak[proc.pid] = max(peak.get(proc.pid, 0), proc.memory_info().rss)
        time.sleep(0.05)


def run_load(env: Environment, urls: list[str], pids: list[int], **config: Any) -> dict[str, Any]:
    config |= {"urls": urls, "key": env.key, "seed": f"{time.time_ns()}"}
    load = subprocess.Popen(
        [sys.executable, __file__, "--load", json.dumps(config)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        cwd=ROOT,
    )
    assert load.stdin is not None and load.stdout is not None
    made: dict[str, Any] = json.loads(load.stdout.readline())
    base = {pid: psutil.Process(pid).memory_info().rss for pid in pids}
    stop, peak = threading.Event(), dict(base)
    sampler = threading.Thread(target=rss_sampler, args=(pids, stop, peak), daemon=True)
    sampler.start()
    started = time.perf_counter()
    load.stdin.write("go\n")
    load.stdin.flush()
    result: dict[str, Any] = json.loads(load.stdout.readline())
    stop.set()
    sampler.join()
    load.wait(30)
    return {**made, **result, "rss_before": base, "rss_peak": peak, "started": started}


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--load", help=argparse.SUPPRESS)
    parser.add_argument("--traces", type=int, default=5000, help="four-span traces per run")
    parser.add_argument("--batch", type=int, default=512, help="spans per export request")
    parser.add_argument("--concurrency", default="4,16,64", help="concurrent requests, comma-separated")
    parser.add_argument("--replicas", type=int, default=1, help="ingest processes (the load is split)")
    parser.add_argument("--flood-concurrency", type=int, default=256)
    parser.add_argument("--flood-batch", type=int, default=4096, help="spans per request in the flood")
    parser.add_argument("--flood-repeat", type=int, default=16, help="each flood body is sent this often")
    args = parser.parse_args()
    if args.load:
        load_main(json.loads(args.load))
        return
    env = Environment()
    procs: list[subprocess.Popen[bytes]] = []
    try:
        ports = [HTTP_PORT + i for i in range(args.replicas)]
        procs = [env.ingest(port) for port in ports]
        urls = [f"http://127.0.0.1:{port}" for port in ports]
        pids = [p.pid for p in procs]
        print(f"ingest x{args.replicas}, {args.traces} traces x 4 spans, {args.batch} spans per request")
        print("| concurrency | spans | wall | spans/s accepted | answers | stored once | receiver RSS peak |")
        print("|---|---|---|---|---|---|---|")
        for concurrency in (int(c) for c in args.concurrency.split(",")):
            r = run_load(env, urls, pids, traces=args.traces, batch=args.batch, concurrency=concurrency)
            messages, distinct = env.stored()
            rss = max(r["rss_peak"].values()) / 2**20
            rate = r["spans"] / r["elapsed_s"]
            print(
                f"| {concurrency} | {r['spans']:,} | {r['elapsed_s']:.2f} s | {rate:,.0f} | {r['statuses']} "
                f"| {distinct == r['spans']} ({messages} messages) | {rss:.0f} MiB |"
            )
        r = run_load(
            env,
            urls,
            pids,
            traces=args.traces * 2,
            batch=args.flood_batch,
            concurrency=args.flood_concurrency,
            repeat=args.flood_repeat,
        )
        messages, distinct = env.stored()
        before = max(r["rss_before"].values()) / 2**20
        peak = max(r["rss_peak"].values()) / 2**20
        print(
            f"\nflood: {args.flood_concurrency} concurrent requests of {args.flood_batch} spans "
            f"({r['bytes'] / r['bodies'] / 2**20:.1f} MiB each), {r['spans']:,} distinct spans each sent "
            f"{args.flood_repeat} times in {r['elapsed_s']:.1f} s, answers {r['statuses']}, all stored once: "
            f"{distinct == r['spans']}; receiver RSS {before:.0f} MiB before, peak {peak:.0f} MiB"
        )
    finally:
        for proc in procs:
            proc.terminate()
        for proc in procs:
            try:
                proc.wait(15)
            except subprocess.TimeoutExpired:
                proc.kill()
        env.close()


if __name__ == "__main__":
    main()
