"""Benchmark: a run against a provider that rate-limits (429 + ``Retry-After: 1`` beyond 50
requests/s), the issue-27 case. Prints figures; asserts nothing.

Run: `make bench` (or `.venv/bin/python bench/rate_limits.py [--items 1000]`). Uses its own stack
(state in .yardstick-bench/rate-limits, ports 9100+/14622) and a loopback server on its own thread.

1. N items at C = 200, no ``rate_limit`` given: the workers learn the limit from the 429s alone;
2. the same with ``rate_limit`` 48/s on the target (the provider's 50/s less a margin);
3. two experiments of N/2 items each, started together on the same target with ``rate_limit`` 48/s:
   their sum stays under the provider's limit;
4. N items at C = 200 against an unlimited target, scored by an ``llm_rubric`` judge whose model
   (an OpenAI-compatible endpoint on the same kind of server) allows 50 requests/s: the workers'
   provider gate waits out its 429s.

For each: wall time against the ideal N / 50 s, errors, 429s sent by the server, the most requests
the server saw in any one second (all of them, and accepted ones), and the workers' last adaptive
concurrency.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("YARDSTICK_HOME", str(ROOT / ".yardstick-bench" / "rate-limits"))
os.environ.setdefault("YARDSTICK_PORT_BASE", "9100")
os.environ.setdefault("YARDSTICK_NATS_PORT", "14622")
os.environ.setdefault("EVAL_CONCURRENCY", "256")
os.environ.setdefault("LOG_LEVEL", "WARNING")

from services.stack import launcher  # noqa: E402
from tests.rate_limited_server import RateLimitedServer  # noqa: E402
from yardstick.client import Client  # noqa: E402

STATE = Path(os.environ["YARDSTICK_HOME"])
LIMIT = 50
CONCURRENCY = 200


def target(url: str, rate: int | None) -> dict[str, Any]:
    spec: dict[str, Any] = {"kind": "http", "url": url, "body_template": {"q": "{input.q}"}}
    if rate is not None:
        spec["rate_limit"] = {"requests": rate, "per": "second"}
    return spec


def wait_all(client: Client, ids: list[str]) -> list[dict[str, Any]]:
    done: dict[str, dict[str, Any]] = {}
    while len(done) < len(ids):
        for experiment_id in ids:
            if experiment_id not in done:
                experiment = client.get_experiment(experiment_id).model_dump()
                if experiment["status"] in ("completed", "failed", "cancelled"):
                    done[experiment_id] = experiment
        time.sleep(0.05)
    return [done[i] for i in ids]


def case(client: Client, label: str, dataset: str, n: int, runs: int, rate: int | None) -> None:
    server = RateLimitedServer(limit=LIMIT)
    url = asyncio.run(server.start())
    started = time.perf_counter()
    ids = [
        client.start_experiment(
            f"rl-{label}-{k}",
            dataset=dataset,
            target=target(url, rate),
            evaluators=["json_valid"],
            run_evaluators=[],
            concurrency=CONCURRENCY,
            timeout_s=30,
        ).id
        for k in range(runs)
    ]
    report(label, wait_all(client, ids), time.perf_counter() - started, n * runs, server)
    asyncio.run(server.stop())


def judge_case(client: Client, n: int, judge_model: RateLimitedServer) -> None:
    target_server = RateLimitedServer(limit=1_000_000)
    url = asyncio.run(target_server.start())
    started = time.perf_counter()
    experiment = client.start_experiment(
        "rl-judged",
        dataset="rl",
        target=target(url, None),
        evaluators=[{"name": "llm_rubric", "args": {"criteria": "Answers the question."}}],
        run_evaluators=[],
        concurrency=CONCURRENCY,
        timeout_s=30,
        judge_cache=False,
    )
    finished = wait_all(client, [experiment.id])
    report("judge model limited 50/s", finished, time.perf_counter() - started, n, judge_model)
    print(f"{'':<28} verdicts answered={len(judge_model.accepted)} of {n} (the rest: not measured)")
    asyncio.run(target_server.stop())


def report(
    label: str, finished: list[dict[str, Any]], wall: float, total: int, server: RateLimitedServer
) -> None:
    ideal = total / LIMIT
    errors = sum(e["progress"]["errors"] for e in finished)
    concurrency = [e["progress"].get("target_concurrency") for e in finished]
    print(
        f"{label:<28} items={total} wall={wall:6.2f}s ideal={ideal:.0f}s ({ideal / wall:.0%}) "
        f"errors={errors} 429s={server.throttled} max req/s={server.max_rate} "
        f"max accepted/s={server.max_accepted_rate} concurrency={concurrency}"
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--items", type=int, default=1000)
    parser.add_argument("--only-429", action="store_true", help="only the case without a rate_limit")
    args = parser.parse_args()
    print(
        f"# Rate-limited target — {args.items} items, C={CONCURRENCY}, server limit {LIMIT}/s with "
        f"429 + Retry-After: 1, {os.cpu_count()} cores, "
        f"2 eval workers x {os.environ['EVAL_CONCURRENCY']} slots"
    )
    launcher.down(STATE)
    os.environ["YARDSTICK_EVAL_WORKERS"] = "2"
    judge_model = RateLimitedServer(limit=LIMIT)  # before the stack: the workers read its URL
    judge_url = asyncio.run(judge_model.start())
    os.environ.update(
        JUDGE_PROVIDER="openai",
        JUDGE_MODEL="bench-judge",
        OPENAI_BASE_URL=judge_url.removesuffix("/answer"),
    )
    state = launcher.up(STATE)
    try:
        client = Client(state.api_url, state.api_key, timeout_s=300)
        items = [{"id": f"rl-{i:06d}", "input": {"q": f"question {i}"}} for i in range(args.items)]
        client.push_dataset("rl", items, kind="generic", replace=True)
        client.push_dataset("rl-half", items[: args.items // 2], kind="generic", replace=True)
        case(client, "429s only (no rate_limit)", "rl", args.items, 1, None)
        if not args.only_429:
            case(client, "rate_limit 48/s", "rl", args.items, 1, 48)
            case(client, "two runs, rate_limit 48/s", "rl-half", args.items // 2, 2, 48)
            judge_case(client, args.items, judge_model)
    finally:
        launcher.down(STATE)
        asyncio.run(judge_model.stop())


if __name__ == "__main__":
    main()
