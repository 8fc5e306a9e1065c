"""``dotted.key=value`` target settings, shared by ``yardstick run --set`` and the CI gate."""

from __future__ import annotations

import pytest

from yardstick.target_settings import TargetSettingError, apply_settings

pytestmark = pytest.mark.unit


def test_values_are_json_when_they_are_json_and_keys_nest() -> None:
    target = {"kind": "http"}
    assert apply_settings(target, ["url=https://app.test/a", "headers.X-Team = 7", "retry=true"]) is target
    assert target == {"kind": "http", "url": "https://app.test/a", "headers": {"X-Team": 7}, "retry": True}


@pytest.mark.parametrize(
    ("setting", "message"),
    [
        ("url", "expected dotted.key=value"),
        ("=1", "expected dotted.key=value"),
        ("url.x=1", "'url' is not an object"),
    ],
)
def test_malformed_settings_are_refused_naming_them(setting: str, message: str) -> None:
    with pytest.raises(TargetSettingError) as caught:
        apply_settings({"kind": "http", "url": "x"}, [setting])
    assert str(caught.value) == f"--set {setting!r}: {message}"
