from __future__ import annotations

import pytest

from services.cli.target_options import TargetOptionError, build_target

pytestmark = pytest.mark.unit


def test_dotted_settings_build_a_validated_target() -> None:
    target = build_target("agent", ["model.offline.ambiguous_policy=guess_first", "model.temperature=0.5"])
    assert target["model"]["offline"]["ambiguous_policy"] == "guess_first"
    assert target["model"]["temperature"] == 0.5


def test_unknown_keys_are_refused_with_the_valid_ones_listed() -> None:
    with pytest.raises(TargetOptionError) as caught:
        build_target("search", ["mdoe=thorough"])
    assert str(caught.value) == (
        "invalid --target search configuration: unknown key 'mdoe' "
        "(valid keys: mode, limit, backend, bypass_cache, degrade)"
    )
    with pytest.raises(TargetOptionError, match=r"unknown key 'model.offlin' \(valid keys: model.provider"):
        build_target("agent", ["model.offlin.x=1"])


@pytest.mark.parametrize("setting", ["noequals", "=1", "mode.x=1"])
def test_malformed_settings(setting: str) -> None:
    with pytest.raises(TargetOptionError):
        build_target("search", [setting])


def test_a_python_target_names_the_task_and_nothing_else() -> None:
    assert build_target("python", ["name=my-app"]) == {"kind": "python", "name": "my-app"}
    with pytest.raises(TargetOptionError, match="name"):
        build_target("python", ["name=my.app"])
    with pytest.raises(TargetOptionError, match=r"valid keys: name"):
        build_target("python", ["name=a", "module=x"])
