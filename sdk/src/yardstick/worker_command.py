"""``yardstick-worker module[:function] …``: the SDK's own task worker command, for an application's
environment where only the SDK is installed (the server's ``yardstick worker`` is the same worker,
with ``--reload`` added). It serves the named ``@yardstick.task`` functions until SIGTERM/SIGINT, then
drains; start more processes to scale. It finds the local stack by itself from any folder, or reads
``NATS_URL`` / ``NATS_NAMESPACE``.

Exit codes: 0 after a clean drain; 2 the functions cannot be loaded; 3 NATS is unreachable or no stack
is found."""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections.abc import Sequence

from yardstick.code_fingerprint import short
from yardstick.errors import NotConfigured, TaskLoadError
from yardstick.serving import serve_until_signalled
from yardstick.task_worker import TaskWorker, TaskWorkerStartError
from yardstick.tasks import load_tasks
from yardstick.worker_settings import TaskWorkerSettings


def load_worker(references: Sequence[str], name: str | None, settings: TaskWorkerSettings) -> TaskWorker:
    """A task worker serving what ``references`` name (``module:function``, or a module for all its
    tasks; ``name`` serves one plain function under that name). Raises ``TaskLoadError`` or
    ``TaskWorkerStartError`` saying what is wrong."""
    if name is not None and len(references) != 1:
        raise TaskLoadError("--name names one function: give exactly one module:function")
    return TaskWorker([fn for ref in references for fn in load_tasks(ref, name)], settings)


def serving_line(worker: TaskWorker, settings: TaskWorkerSettings) -> str:
    return (
        f"serving {', '.join(sorted(worker.tasks))} on {settings.nats_url} "
        f"(namespace {settings.nats_namespace}, code {short(worker.code_fingerprint)}); "
        "Ctrl-C drains and stops"
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="yardstick-worker", description="Serve @yardstick.task functions as python targets."
    )
    parser.add_argument("references", nargs="+", help="module:function, or a module to serve all its tasks")
    parser.add_argument("--name", help="serve a plain function under this python target name")
    parser.add_argument("--concurrency", "-c", type=int, help="calls at once (default TASK_CONCURRENCY, 8)")
    args = parser.parse_args(argv)
    overrides = {} if args.concurrency is None else {"task_concurrency": args.concurrency}
    try:
        settings = TaskWorkerSettings.discover(**overrides)
    except NotConfigured as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 3
    try:
        worker = load_worker(args.references, args.name, settings)
    except (TaskLoadError, TaskWorkerStartError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(serving_line(worker, settings), file=sys.stderr)
    try:
        asyncio.run(serve_until_signalled(worker))
    except TaskWorkerStartError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 3
    return 0


if __name__ == "__main__":
    sys.exit(main())
