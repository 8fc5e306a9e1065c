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
        "(valid keys: mode, limit, backend, bypass_cache, degrade); did you mean 'mode'?"
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


def test_a_misspelt_kind_names_the_closest_one_and_every_kind() -> None:
    with pytest.raises(TargetOptionError) as caught:
        build_target("pyhton", [])
    assert str(caught.value) == (
        "unknown target kind 'pyhton'; did you mean 'python'? "
        "Known kinds: agent, search, answer, http, python"
    )
    with pytest.raises(TargetOptionError, match=r"^unknown target kind 'zzz'; known kinds: agent, "):
        build_target("zzz", [])


def test_a_misspelt_key_or_value_names_the_closest_one_in_plain_words() -> None:
    with pytest.raises(
        TargetOptionError,
        match=r"'model\.offline\.ambiguous_polcy' .*; did you mean 'model\.offline\.ambiguous_policy'\?$",
    ):
        build_target("agent", ["model.offline.ambiguous_polcy=guess_first"])
    with pytest.raises(TargetOptionError) as caught:
        build_target("search", ["mode=thorogh"])
    assert str(caught.value) == (
        "invalid --target search configuration: "
        "mode: 'thorogh' is not one of 'fast', 'balanced', 'thorough'; did you mean 'thorough'?"
    )
    with pytest.raises(TargetOptionError, match=r"configuration: missing key 'name'; unknown key 'nmae'"):
        build_target("python", ["nmae=my-app"])
