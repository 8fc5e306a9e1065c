"""A service raises its soft open-file limit towards what thousands of tasks in flight need."""

from __future__ import annotations

import resource

import pytest

from shared.file_limits import raise_open_file_limit

pytestmark = pytest.mark.unit


def _limits(monkeypatch: pytest.MonkeyPatch, soft: int, hard: int) -> list[tuple[int, int]]:
    asked: list[tuple[int, int]] = []
    monkeypatch.setattr(resource, "getrlimit", lambda _: (soft, hard))
    monkeypatch.setattr(resource, "setrlimit", lambda _, limits: asked.append(limits))
    return asked


def test_a_low_soft_limit_is_raised_to_the_hard_one(monkeypatch: pytest.MonkeyPatch) -> None:
    asked = _limits(monkeypatch, 1024, 4096)
    assert raise_open_file_limit(65_536) == 4096
    assert asked == [(4096, 4096)]


def test_it_stops_at_what_is_wanted_and_never_lowers(monkeypatch: pytest.MonkeyPatch) -> None:
    asked = _limits(monkeypatch, 1024, resource.RLIM_INFINITY)
    assert raise_open_file_limit(65_536) == 65_536
    assert asked == [(65_536, resource.RLIM_INFINITY)]
    asked = _limits(monkeypatch, 100_000, 200_000)
    assert raise_open_file_limit(65_536) == 100_000
    assert asked == []
