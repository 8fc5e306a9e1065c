"""@yardstick.task and loading `module:function` references."""

from __future__ import annotations

from typing import Any

import pytest

from tests.yardstick import sample_tasks
from yardstick import PythonTarget, TaskFunction, TaskLoadError, load_tasks, task

pytestmark = pytest.mark.unit


def test_a_decorated_function_stays_callable_and_names_its_target() -> None:
    @task("my-app")
    def answer(input: dict[str, Any]) -> str:
        return str(input["q"])

    assert answer({"q": 3}) == "3"
    assert answer.target == PythonTarget(name="my-app") and not answer.is_async


def test_an_async_function_is_recognised() -> None:
    assert sample_tasks.shout_async.is_async and not sample_tasks.shout.is_async


@pytest.mark.parametrize("name", ["", "has.dot", "has space", "star*", "x" * 101])
def test_a_name_that_is_not_one_subject_token_is_refused(name: str) -> None:
    with pytest.raises(ValueError, match="task name"):
        task(name)(lambda input: input)


def test_load_one_task_or_every_task_of_a_module() -> None:
    assert load_tasks("tests.yardstick.sample_tasks:shout") == [sample_tasks.shout]
    names = {t.name for t in load_tasks("tests.yardstick.sample_tasks")}
    assert {"shout", "shout-async", "whisper", "broken", "slow-shout"} <= names


def test_a_plain_function_needs_a_name() -> None:
    with pytest.raises(TaskLoadError, match="--name"):
        load_tasks("tests.yardstick.test_tasks:plain")
    [renamed] = load_tasks("tests.yardstick.test_tasks:plain", name="plain-app")
    assert isinstance(renamed, TaskFunction) and renamed.name == "plain-app" and renamed({"a": 1}) == {"a": 1}


@pytest.mark.parametrize(
    ("reference", "message"),
    [
        ("no_such_module_xyz:fn", "cannot import"),
        ("tests.yardstick.sample_tasks:missing", "has no function 'missing'"),
        ("tests.yardstick.conftest", "defines no @yardstick.task"),
    ],
)
def test_a_reference_that_names_no_task_says_why(reference: str, message: str) -> None:
    with pytest.raises(TaskLoadError, match=message):
        load_tasks(reference)


def plain(input: dict[str, Any]) -> dict[str, Any]:
    return input
