"""Finding the local stack from any folder: the per-user file, YARDSTICK_HOME, the environment first,
stale files, and a not-found that lists where it looked."""

from __future__ import annotations

import os
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

import pytest

from yardstick.api.stack_location import (
    StackLocation,
    read_location,
    remove_user_location,
    user_state_file,
    write_user_location,
)
from yardstick.discovery import find_api, find_nats_stack
from yardstick.errors import NotConfigured
from yardstick.worker_settings import TaskWorkerSettings

pytestmark = pytest.mark.unit


def location(
    state_dir: Path, pid: int | None = None, api_url: str = "http://127.0.0.1:8700"
) -> StackLocation:
    return StackLocation(
        state_dir=str(state_dir),
        pid=os.getpid() if pid is None else pid,
        api_url=api_url,
        api_key="ys_key",
        nats_url="nats://127.0.0.1:14222",
        namespace="yardstick",
        started_at=datetime(2026, 11, 28, 8, 0, tzinfo=UTC),
    )


def gone_pid() -> int:
    """The pid of a process that has exited (and been reaped)."""
    proc = subprocess.Popen([sys.executable, "-c", ""])
    proc.wait()
    return proc.pid


@pytest.fixture
def elsewhere(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A clean environment: in an app folder without a stack, the per-user file under tmp_path."""
    for name in ("YARDSTICK_HOME", "YARDSTICK_API_URL", "YARDSTICK_API_KEY", "NATS_URL", "NATS_NAMESPACE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    app = tmp_path / "my_app"
    app.mkdir()
    monkeypatch.chdir(app)
    return tmp_path


def test_the_per_user_file_is_under_xdg_state_home_and_none_with_yardstick_home() -> None:
    assert user_state_file({"XDG_STATE_HOME": "/s"}) == Path("/s/yardstick/stack.json")
    assert user_state_file({"HOME": "/h"}) == Path.home() / ".local/state/yardstick/stack.json"
    assert user_state_file({"YARDSTICK_HOME": "/y", "XDG_STATE_HOME": "/s"}) is None


def test_a_stack_started_in_another_folder_is_found_through_the_per_user_file(elsewhere: Path) -> None:
    user_file = user_state_file()
    assert user_file is not None
    write_user_location(location(elsewhere / "stack-folder"), user_file)
    assert user_file.stat().st_mode & 0o777 == 0o600

    api = find_api()
    assert (api.url, api.api_key) == ("http://127.0.0.1:8700", "ys_key")
    settings = TaskWorkerSettings.discover()
    assert (settings.nats_url, settings.nats_namespace) == ("nats://127.0.0.1:14222", "yardstick")


def test_explicit_urls_and_the_environment_win_over_the_file(
    elsewhere: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    user_file = user_state_file()
    assert user_file is not None
    write_user_location(location(elsewhere), user_file)
    assert find_api("http://given:1", "k").url == "http://given:1"
    monkeypatch.setenv("YARDSTICK_API_URL", "http://env:2")
    monkeypatch.setenv("YARDSTICK_API_KEY", "k2")
    assert find_api().url == "http://env:2"
    monkeypatch.setenv("NATS_URL", "nats://env:4")
    assert TaskWorkerSettings.discover().nats_url == "nats://env:4"


def test_a_stale_file_is_not_used_and_the_error_says_so_and_where_it_looked(elsewhere: Path) -> None:
    user_file = user_state_file()
    assert user_file is not None
    dead = gone_pid()
    write_user_location(location(elsewhere / "stack-folder", pid=dead), user_file)

    with pytest.raises(NotConfigured) as api_error:
        find_api()
    message = str(api_error.value)
    assert "YARDSTICK_API_URL and YARDSTICK_API_KEY (not both set)" in message
    assert f"{Path.cwd() / '.yardstick' / 'stack.json'} (missing)" in message
    assert f"{user_file} (stale: the stack started in {elsewhere / 'stack-folder'}" in message
    assert f"pid {dead} is gone" in message
    assert message.index(".yardstick") < message.index(str(user_file))  # in the order looked at
    assert "yardstick stack up" in message

    with pytest.raises(NotConfigured) as nats_error:
        find_nats_stack()
    assert "NATS_URL (not set" in str(nats_error.value) and "stale" in str(nats_error.value)


def test_yardstick_home_overrides_the_folder_and_the_per_user_file(
    elsewhere: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    user_file = user_state_file()
    assert user_file is not None
    write_user_location(location(elsewhere, api_url="http://user:1"), user_file)
    home = elsewhere / "home"
    monkeypatch.setenv("YARDSTICK_HOME", str(home))
    with pytest.raises(NotConfigured, match=f"{home / 'stack.json'} \\(missing\\)"):
        find_api()
    write_user_location(location(home, api_url="http://home:2"), home / "stack.json")
    assert find_api().url == "http://home:2"


def test_this_folders_own_stack_file_comes_first(elsewhere: Path) -> None:
    user_file = user_state_file()
    assert user_file is not None
    write_user_location(location(elsewhere, api_url="http://user:1"), user_file)
    own = Path(".yardstick/stack.json")
    own.parent.mkdir()
    own.write_text(  # the launcher's larger record, as services/stack/state.py writes it
        '{"state_dir": ".yardstick", "nats_url": "nats://127.0.0.1:9", "database_url": "x", '
        '"namespace": "ns", "started_at": "2026-11-28T08:00:00Z", "own_nats": true, "own_postgres": true, '
        '"api_url": "http://here:3", "api_key": "k", '
        f'"processes": [{{"name": "coordinator", "pid": {os.getpid()}, "log": "l", "create_time": 0}}]}}'
    )
    assert find_api().url == "http://here:3"
    assert TaskWorkerSettings.discover().nats_namespace == "ns"


def test_stack_down_removes_only_its_own_record(elsewhere: Path) -> None:
    user_file = user_state_file()
    assert user_file is not None
    write_user_location(location(elsewhere / "a"), user_file)
    assert not remove_user_location(user_file, str(elsewhere / "b"))
    assert read_location(user_file) is not None
    assert remove_user_location(user_file, str(elsewhere / "a"))
    assert not user_file.exists()
