"""A task worker whose source file is edited after it started never serves the old code: it refuses
the next call with the message that says so, the call is served by a fresh worker (not lost, not run
twice), and the experiment records both fingerprints; `yardstick worker --reload` restarts on the edit."""

from __future__ import annotations

import asyncio
import importlib
import signal
import sys
import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from types import ModuleType

import psutil
import pytest

from services.evaluator.errors import TargetUnavailable
from services.evaluator.targets.base import CallContext
from services.evaluator.targets.python_task import PythonTaskTarget
from services.evaluator.worker import EvalWorker
from tests.services.evaluator.in_process import running_workers
from tests.yardstick import call_gate
from tests.yardstick.conftest import StartTaskWorker, qa_items
from tests.yardstick.task_worker_process import TaskWorkerProcess
from yardstick import Client, load_tasks
from yardstick.api.eval_messages import EvalTask, PythonTarget
from yardstick.api.topology import Topology
from yardstick.code_fingerprint import SourceWatch

pytestmark = [pytest.mark.integration, pytest.mark.timeout(120)]

APP = """
import yardstick
from tests.yardstick import call_gate


@yardstick.task("{task}")
def answer(input: dict) -> str:
    if {gated}:
        call_gate.ENTERED.set()
        call_gate.RELEASE.wait(30)
    return str(input["question"]).upper() + "{version}"
"""


def write_app(folder: Path, module: str, task: str, version: str, gated: bool = False) -> Path:
    path = folder / f"{module}.py"
    path.write_text(APP.format(task=task, version=version, gated=gated))
    return path


@pytest.fixture
def app(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[Path, str, str]]:
    """A module of its own in a folder on sys.path: (folder, module name, task name)."""
    monkeypatch.syspath_prepend(str(tmp_path))
    suffix = uuid.uuid4().hex[:8]
    yield tmp_path, f"stale_app_{suffix}", f"stale-{suffix}"
    sys.modules.pop(f"stale_app_{suffix}", None)


def reimport(module: str) -> ModuleType:
    """The edited module as a fresh worker process would load it."""
    return importlib.reload(sys.modules[module])


def task_for(task: str) -> EvalTask:
    return EvalTask(
        experiment_id="e1", item_id="q0", input={"question": "oslo"}, target=PythonTarget(name=task)
    )


async def test_an_edited_worker_refuses_the_next_call_and_a_fresh_one_serves_it(
    app: tuple[Path, str, str], start_task_worker: StartTaskWorker, nats_client: object, topology: Topology
) -> None:
    folder, module, task = app
    path = write_app(folder, module, task, "-v1")
    old = await start_task_worker(*load_tasks(module))
    target = PythonTaskTarget(nats_client, topology)  # type: ignore[arg-type]
    ctx = CallContext(worker_id="eval-0", task_id="t", attempt=1)
    first = await target.call(task_for(task), ctx)
    assert first.output == {"output": "OSLO-v1"} and first.code_fingerprint == old.code_fingerprint

    write_app(folder, module, task, "-v2-edited")
    with pytest.raises(TargetUnavailable) as refused:
        await target.call(task_for(task), ctx)
    assert (
        f"task code changed on disk since this worker started ({path.name}); restart it, or run "
        "yardstick worker --reload" in str(refused.value)
    )
    await asyncio.wait_for(old.code_stale.wait(), 10)  # it left the queue group
    assert (old.served, old.refused) == (1, 1)

    reimport(module)
    fresh = await start_task_worker(*load_tasks(module))
    assert fresh.code_fingerprint == SourceWatch([path]).fingerprint != old.code_fingerprint
    again = await target.call(task_for(task), ctx)  # the retry: the stale worker withdrew
    assert again.output == {"output": "OSLO-v2-edited"} and again.code_fingerprint == fresh.code_fingerprint
    assert (old.served, fresh.served) == (1, 1)


@pytest.fixture
async def patient_eval_workers(nats_url: str, topology: Topology) -> AsyncIterator[list[EvalWorker]]:
    """Eval workers whose retries of a refused call span a few seconds: time for a fresh worker."""
    async with running_workers(
        nats_url, topology, id_prefix="eval-", eval_backoff_base_s=1.0, eval_backoff_max_s=2.0
    ) as started:
        yield started


async def test_an_experiment_edited_mid_run_is_finished_by_a_fresh_worker_and_records_both_codes(
    app: tuple[Path, str, str],
    client: Client,
    patient_eval_workers: list[EvalWorker],
    start_task_worker: StartTaskWorker,
) -> None:
    folder, module, task = app
    write_app(folder, module, task, "", gated=True)
    old = await start_task_worker(*load_tasks(module))
    call_gate.ENTERED.clear()
    call_gate.RELEASE.clear()
    await asyncio.to_thread(client.push_dataset, f"qa-{task}", qa_items())
    accepted = await asyncio.to_thread(
        lambda: client.start_experiment(
            "edited-mid-run",
            dataset=f"qa-{task}",
            target={"kind": "python", "name": task},
            evaluators=["exact_match"],
            concurrency=1,
        )
    )
    assert await asyncio.to_thread(call_gate.ENTERED.wait, 30)  # one call is running the old code
    write_app(folder, module, task, "")  # the same answers, without the gate: new code
    call_gate.RELEASE.set()
    await asyncio.wait_for(old.code_stale.wait(), 30)  # the next call was refused

    reimport(module)
    fresh = await start_task_worker(*load_tasks(module))
    done = await asyncio.to_thread(client.wait, accepted.id, timeout_s=60)

    assert done.status == "completed" and done.progress.done == 4 and done.progress.errors == 0
    assert old.served == 1 and old.refused >= 1 and fresh.served == 3  # each item run once
    assert done.code_fingerprints == sorted([old.code_fingerprint or "", fresh.code_fingerprint or ""])
    report = await asyncio.to_thread(client.report_text, accepted.id, "md")
    assert "the candidate's results came from 2 versions of the task code" in report


async def test_reload_restarts_the_worker_when_its_module_changes(
    app: tuple[Path, str, str], nats_url: str, topology: Topology
) -> None:
    folder, module, task = app
    write_app(folder, module, task, "-v1")
    proc = TaskWorkerProcess(
        nats_url, topology, "reloading", "--reload", module, PYTHONPATH=f"{folder}:{Path.cwd()}"
    )
    await proc.start()
    try:
        first = await proc.wait_for_log("task worker ready")
        write_app(folder, module, task, "-v2-edited")
        second = await proc.wait_for_log_count("task worker ready", 2)
        assert second["code_fingerprint"] == SourceWatch([folder / f"{module}.py"]).fingerprint
        assert second["code_fingerprint"] != first["code_fingerprint"] and second["pid"] != first["pid"]
        proc.signal(signal.SIGTERM)
        assert await proc.wait_exit() == 0
        assert not psutil.pid_exists(second["pid"]) or psutil.Process(second["pid"]).status() == "zombie"
    finally:
        await proc.kill()
