"""`yardstick worker module:function`: serve @yardstick.task functions as python targets until
SIGTERM/SIGINT (then drain). Start more processes to scale; each finds the local stack by itself, from
any folder (or reads NATS_URL / NATS_NAMESPACE).

A worker never serves code older than what is on disk: once its task source changed it refuses the
calls (a fresh worker gets them) and says to restart it. ``--reload`` does that itself: this process
watches the folder of each module named (recursively, ``.py`` files, with ``watchfiles``) and runs the
worker as a child process, restarted (SIGINT: it drains) on every change.

Exit codes: 0 after a clean drain; 2 the functions cannot be loaded; 3 NATS is unreachable or no stack
is found."""

from __future__ import annotations

import asyncio
import contextlib
import importlib.util
import os
import shlex
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import typer

from services.cli.consoles import stderr_console
from shared.log_setup import configure_logging
from yardstick.errors import NotConfigured, TaskLoadError

if TYPE_CHECKING:
    from watchfiles import Change

err = stderr_console()
RUN_CLI = "from services.cli.app import main; main()"


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
    reload: bool = typer.Option(
        False,
        "--reload",
        help="Restart the worker whenever a .py file in the folder of a module named changes",
    ),
) -> None:
    """Serve your Python function as the target of `--target python --set name=NAME` experiments."""
    from yardstick.serving import serve_until_signalled  # deferred: NATS, only for this command
    from yardstick.task_worker import TaskWorkerStartError
    from yardstick.worker_command import load_worker, serving_line
    from yardstick.worker_settings import TaskWorkerSettings

    overrides = {} if concurrency is None else {"task_concurrency": concurrency}
    try:
        settings = TaskWorkerSettings.discover(**overrides)
    except NotConfigured as exc:
        err.print(f"[red]error:[/red] {exc}")
        raise typer.Exit(3) from exc
    configure_logging("task-worker", settings.log_level, settings.log_json)
    if reload:
        raise typer.Exit(_reload(references, name, concurrency, settings.task_drain_timeout_s))
    try:
        worker = load_worker(references, name, settings)
    except (TaskLoadError, TaskWorkerStartError) as exc:
        err.print(f"[red]error:[/red] {exc}")
        raise typer.Exit(2) from exc
    err.print(serving_line(worker, settings))
    try:
        asyncio.run(serve_until_signalled(worker))
    except TaskWorkerStartError as exc:
        err.print(f"[red]error:[/red] {exc}")
        raise typer.Exit(3) from exc


def watched_folders(references: list[str]) -> list[Path]:
    """The folder of each module named (found without importing it); :class:`TaskLoadError` when
    one is not found."""
    if str(Path.cwd()) not in sys.path:
        sys.path.insert(0, str(Path.cwd()))
    folders: set[Path] = set()
    for reference in references:
        module = reference.partition(":")[0]
        try:
            spec = importlib.util.find_spec(module)
        except (ImportError, ValueError) as exc:
            raise TaskLoadError(f"cannot find {module!r} (from {reference!r}): {exc}") from exc
        if spec is None or spec.origin is None or not spec.has_location:
            raise TaskLoadError(f"cannot find {module!r} (from {reference!r}) as a file to watch")
        folders.add(Path(spec.origin).resolve().parent)
    return sorted(folders)


def _reload(references: list[str], name: str | None, concurrency: int | None, drain_s: float) -> int:
    """Run ``yardstick worker`` (without --reload) as a child, restarted on every .py change (it may
    drain for ``drain_s`` before it is killed)."""
    import watchfiles

    try:
        folders = watched_folders(references)
    except TaskLoadError as exc:
        err.print(f"[red]error:[/red] {exc}")
        return 2
    command = [sys.executable, "-c", RUN_CLI, "worker", *references]
    command += [] if name is None else ["--name", name]
    command += [] if concurrency is None else ["--concurrency", str(concurrency)]
    os.environ["TASK_RELOAD"] = "true"  # the child says "reloading" when it notices a change first
    err.print(f"reloading on changes to .py files in {', '.join(map(str, folders))}")
    with contextlib.suppress(KeyboardInterrupt):  # SIGINT/SIGTERM: the child was stopped (it drained)
        watchfiles.run_process(
            *folders,
            target=shlex.join(command),
            target_type="command",
            watch_filter=watchfiles.PythonFilter(),
            callback=_say_restart,
            sigint_timeout=max(1, round(drain_s)),
        )
    return 0


def _say_restart(changes: set[tuple[Change, str]]) -> None:
    names = sorted({Path(path).name for _, path in changes})
    err.print(f"task code changed ({', '.join(names)}): restarting the worker")
