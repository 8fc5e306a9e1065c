"""``@yardstick.task("my-app")``: a Python function served as the python target ``my-app``.

The function takes the item's ``input`` (a dict) and returns its output: a dict is the output as
is, anything else is stored as ``{"output": value}`` (so ``exact_match`` and the other generic
evaluators read it without a ``field``). It may be ``def`` (run in a thread) or ``async def``
(awaited, cancelled at the item's timeout). What it raises becomes the item's recorded error.
"""

from __future__ import annotations

import importlib
import inspect
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from yardstick.api.eval_messages import TASK_NAME_PATTERN, PythonTarget
from yardstick.errors import TaskLoadError

TaskFn = Callable[[dict[str, Any]], Any]
"""``fn(input) -> output``, or ``async def fn(input) -> output``."""

_NAME = re.compile(TASK_NAME_PATTERN)


@dataclass(frozen=True)
class TaskFunction:
    """A function with the python target name it is served under; still callable as before."""

    name: str
    fn: TaskFn

    def __post_init__(self) -> None:
        if not _NAME.match(self.name):
            raise ValueError(
                f"task name {self.name!r}: use 1-100 letters, digits, '_' or '-' (it is a NATS subject token)"
            )

    @property
    def is_async(self) -> bool:
        return inspect.iscoroutinefunction(self.fn)

    @property
    def target(self) -> PythonTarget:
        """The experiment target that runs items through this function."""
        return PythonTarget(name=self.name)

    def __call__(self, input: dict[str, Any]) -> Any:
        return self.fn(input)


def task(name: str) -> Callable[[TaskFn], TaskFunction]:
    """Serve the decorated function as the python target ``name`` (see ``yardstick worker``)."""

    def decorate(fn: TaskFn) -> TaskFunction:
        return TaskFunction(name=name, fn=fn)

    return decorate


def load_tasks(reference: str, name: str | None = None) -> list[TaskFunction]:
    """``module:function`` → that task; ``module`` → every task the module defines. A plain function
    needs ``name``. The current directory is importable, as for ``python -m``."""
    module_name, _, attribute = reference.partition(":")
    if str(Path.cwd()) not in sys.path:
        sys.path.insert(0, str(Path.cwd()))
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise TaskLoadError(f"cannot import {module_name!r} (from {reference!r}): {exc}") from exc
    if not attribute:
        found = [value for value in vars(module).values() if isinstance(value, TaskFunction)]
        if not found:
            raise TaskLoadError(f"module {module_name!r} defines no @yardstick.task function")
        return found
    value = getattr(module, attribute, None)
    if isinstance(value, TaskFunction):
        return [value if name is None else TaskFunction(name=name, fn=value.fn)]
    if callable(value):
        if name is None:
            raise TaskLoadError(
                f"{reference!r} is a plain function: decorate it with @yardstick.task('NAME') or give --name"
            )
        return [TaskFunction(name=name, fn=value)]
    raise TaskLoadError(f"{reference!r}: module {module_name!r} has no function {attribute!r}")
