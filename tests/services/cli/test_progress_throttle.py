"""The progress bar names throttling only once it happened."""

from __future__ import annotations

import pytest

from services.cli.progress_view import throttle_text

pytestmark = pytest.mark.unit


def test_throttle_text() -> None:
    assert throttle_text(0, None) == ""
    assert throttle_text(0, 50) == ""
    assert throttle_text(312, 24) == "throttled 312 · concurrency 24"
    assert throttle_text(3, None) == "throttled 3"
