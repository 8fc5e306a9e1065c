"""Benchmark: how fast the web UI's pages answer on a 10,000-item experiment, and the experiments
list at 1,000+ experiments.

Prints figures; asserts nothing. Run: `.venv/bin/python bench/ui_pages.py [--items 10000]`. Uses its
own stack (state in .yardstick-bench/ui-pages, ports 9000+, NATS 14522): pushes N synthetic
retrieval items (the golden queries repeated), runs a baseline and a degraded candidate on the
search target (compared at completion), copies the baseline's row until there are 1,000
experiments (list rows only: their items are not copied), signs in with a one-time link, then times
each page (server time to the last byte, median of 5 requests after one warm-up).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import httpx
import psycopg

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("YARDSTICK_HOME", str(ROOT / ".yardstick-bench" / "ui-pages"))
os.environ.setdefault("YARDSTICK_PORT_BASE", "9000")
os.environ.setdefault("YARDSTICK_NATS_PORT", "14522")
os.environ.setdefault("LOG_LEVEL", "WARNING")

from services.cli.ui_cmd import sign_in_link  # noqa: E402
from services.stack import launcher  # noqa: E402
from services.stack.state import StackState  # noqa: E402
from shared.datasets.files import load_dataset_file  # noqa: E402
from shared.db.session import plain_url  # noqa: E402
from yardstick.client import Client  # noqa: E402

STATE = Path(os.environ["YARDSTICK_HOME"])
GOLDEN = [i.model_dump(mode="json") for i in load_dataset_file(ROOT / "datasets/search/golden-v1.json").items]
REPEATS = 5


def push(client: Client, n: int) -> None:
    items = [{**GOLDEN[i % len(GOLDEN)], "id": f"ui-{i:06d}"} for i in range(n)]
    for start in range(0, n, 20_000):
        client.push_dataset("ui-bench", items[start : start + 20_000], kind="retrieval", replace=start == 0)


def run(client: Client, name: str, degrade: float, baseline_id: str | None = None) -> str:
    body: dict[str, Any] = {
        "name": name,
        "dataset": "ui-bench",
        "concurrency": 200,
        "target": {"kind": "search", "limit": 3, "bypass_cache": False, "degrade": degrade},
    }
    if baseline_id:
        body["baseline_id"] = baseline_id
    accepted = client.start_experiment(**body)
    while client.get_experiment(accepted.id).status not in ("completed", "failed", "cancelled"):
        time.sleep(1.0)
    return accepted.id


def copy_experiments(database_url: str, source_id: str, total: int) -> int:
    """Copies of one experiment's row (not its items) until there are ``total`` experiments."""
    with psycopg.connect(plain_url(database_url)) as conn:
        existing = conn.execute("SELECT count(*) FROM experiments").fetchone()
        missing = max(0, total - (existing[0] if existing else 0))
        conn.execute(
            "INSERT INTO experiments (id, name, dataset_id, version_id, status, config, baseline_id,"
            " total, done, errors, aggregates, error, created_at, started_at, completed_at) "
            "SELECT gen_random_uuid()::text, name || '-copy-' || g, dataset_id, version_id, status,"
            " config, NULL, total, done, errors, aggregates, error,"
            " created_at - make_interval(secs => g), started_at, completed_at"
            " FROM experiments, generate_series(1, %s) AS g WHERE id = %s",
            (missing, source_id),
        )
        counted = conn.execute("SELECT count(*) FROM experiments").fetchone()
    return int(counted[0]) if counted else 0


def timed(http: httpx.Client, path: str) -> tuple[float, int]:
    http.get(path)  # warm-up
    times = []
    size = 0
    for _ in range(REPEATS):
        started = time.perf_counter()
        response = http.get(path)
        times.append(time.perf_counter() - started)
        response.raise_for_status()
        size = len(response.content)
    return statistics.median(times), size


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    parser.add_argument("--items", type=int, default=10_000)
    parser.add_argument("--experiments", type=int, default=1_000)
    args = parser.parse_args()
    launcher.down(STATE)
    state: StackState = launcher.up(STATE)
    try:
        client = Client(state.api_url, state.api_key, timeout_s=600)
        push(client, args.items)
        started = time.monotonic()
        baseline = run(client, "ui-bench-baseline", 0.0)
        candidate = run(client, "ui-bench-degraded", 0.3, baseline)
        print(f"two runs of {args.items:,} items in {time.monotonic() - started:.0f} s")
        print(
            f"experiments in the list: {copy_experiments(state.database_url, baseline, args.experiments):,}"
        )
        with httpx.Client(base_url=client.url, timeout=120, follow_redirects=True) as http:
            http.get(sign_in_link(client, "/ui/experiments")).raise_for_status()
            pages = {
                "experiments list (page 1)": "/ui/experiments",
                "experiments list (page 40)": "/ui/experiments?page=40",
                "experiments list, name filter": "/ui/experiments?name=degraded",
                "experiment page (10k items)": f"/ui/experiments/{candidate}",
                "  items page 2": f"/ui/experiments/{candidate}?page=2",
                "  items page 150": f"/ui/experiments/{candidate}?page=150",
                "  sorted by recall@3, desc": f"/ui/experiments/{candidate}?sort=recall@3&order=desc&page=3",
                "  failing recall@3": f"/ui/experiments/{candidate}?failing=recall@3&page=2",
                "  free text 'oauth'": f"/ui/experiments/{candidate}?q=oauth",
                "item page": f"/ui/experiments/{candidate}/items/ui-000042",
                "compare (10k pairs)": f"/ui/compare?baseline={baseline}&candidate={candidate}",
                "  item diff page 20": f"/ui/compare?baseline={baseline}&candidate={candidate}&page=20",
                "datasets": "/ui/datasets",
                "dataset (10k items)": "/ui/datasets/ui-bench",
                "online": "/ui/online",
            }
            print(f"{'page':<32} {'median ms':>10} {'KiB':>8}   (median of {REPEATS}, after one warm-up)")
            for label, path in pages.items():
                seconds, size = timed(http, path)
                print(f"{label:<32} {seconds * 1000:>10.0f} {size / 1024:>8.0f}")
    finally:
        launcher.down(STATE)


if __name__ == "__main__":
    main()
