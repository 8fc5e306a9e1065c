"""`yardstick worker module:function`: serve @yardstick.task functions as python targets until
SIGTERM/SIGINT (then drain). Start more processes to scale; each finds the local stack by itself
(or reads NATS_URL / NATS_NAMESPACE).

Exit codes: 0 after a clean drain; 2 the functions cannot be loaded; 3 NATS is unreachable."""

from __future__ import annotations

import asyncio

import typer

from services.cli.consoles import stderr_console
from shared.log_setup import configure_logging
from yardstick.errors import TaskLoadError
from yardstick.tasks import load_tasks

err = stderr_console()


def worker_command(
    references: list[str] = typer.Argument(
        ..., help="module:function (a @yardstick.task function), or a module to serve all its tasks"
    ),
    name: str | None = typer.Option(
        None, "--name", help="Serve a plain function under this python target name"
    ),
    concurrency: int | None = typer.Option(
        None, "--concurrency", "-c", min=1, max=1000, help="Calls at once (default TASK_CONCURRENCY, 8)"
    ),
) -> None:
    """Serve your Python function as the target of `--target python --set name=NAME` experiments."""
    from yardstick.serving import serve_until_signalled  # deferred: NATS, only for this command
    from yardstick.task_worker import TaskWorker, TaskWorkerStartError
    from yardstick.worker_settings import TaskWorkerSettings

    overrides = {} if concurrency is None else {"task_concurrency": concurrency}
    settings = TaskWorkerSettings.discover(**overrides)
    configure_logging("task-worker", settings.log_level, settings.log_json)
    try:
        if name is not None and len(references) != 1:
            raise TaskLoadError("--name names one function: give exactly one module:function")
        tasks = [fn for ref in references for fn in load_tasks(ref, name)]
        worker = TaskWorker(tasks, settings)
    except (TaskLoadError, TaskWorkerStartError) as exc:
        err.print(f"[red]error:[/red] {exc}")
        raise typer.Exit(2) from exc
    err.print(
        f"serving {', '.join(sorted(worker.tasks))} on {settings.nats_url} "
        f"(namespace {settings.nats_namespace}); Ctrl-C drains and stops"
    )
    try:
        asyncio.run(serve_until_signalled(worker))
    except TaskWorkerStartError as exc:
        err.print(f"[red]error:[/red] {exc}")
        raise typer.Exit(3) from exc
