"""Flags, their ``YARDSTICK_CI_*`` variables, and the target they describe."""

from __future__ import annotations

from pathlib import Path

import pytest

from yardstick.ci.options import OptionsError, parse_options, target_dict

pytestmark = pytest.mark.unit


def test_variables_fill_in_what_the_flags_do_not_say() -> None:
    env = {
        "YARDSTICK_CI_DATASET": "from-env",
        "YARDSTICK_CI_GATES": "exact_match>=0.9\n\n  latency_ms.p95<=2000 \n",
        "YARDSTICK_CI_SET": "url=https://app.test/answer",
        "YARDSTICK_CI_MAX_ERROR_RATE": "0.05",
        "YARDSTICK_CI_COMMENT": "false",
        "YARDSTICK_CI_TASK": "",  # an action input left empty
    }
    options = parse_options(["--dataset", "from-flag", "--evaluator", "exact_match", "--evaluator", "x"], env)
    assert options.dataset == "from-flag" and options.evaluators == ["exact_match", "x"]
    assert options.gates == ["exact_match>=0.9", "latency_ms.p95<=2000"]
    assert options.set_ == ["url=https://app.test/answer"]
    assert (options.max_error_rate, options.comment, options.task) == (0.05, False, None)
    assert (options.mode, options.name_prefix, options.out_dir) == ("server", "ci", Path("yardstick-ci"))
    assert parse_options(["--dataset", "d", "--comment"], env).comment


@pytest.mark.parametrize(
    ("argv", "env", "message"),
    [
        ([], {}, "give --dataset .* or --dataset-file"),
        (["--dataset", "d", "--mode", "cloud"], {}, "--mode: Input should be 'server' or 'local'"),
        (["--dataset", "d"], {"YARDSTICK_CI_MAX_ERROR_RATE": "2"}, "--max-error-rate: Input should be less"),
        (["--dataset", "d", "--task", "m:f", "--target", "http"], {}, "give --target or --task"),
        (["--dataset", "d", "--name-prefix", "a b"], {}, "--name-prefix: String should match"),
    ],
)
def test_a_bad_value_is_refused_naming_its_option(argv: list[str], env: dict[str, str], message: str) -> None:
    with pytest.raises(OptionsError, match=message):
        parse_options(argv, env)


def test_targets_are_a_kind_or_json_with_settings_on_top() -> None:
    assert target_dict("agent", []) == {"kind": "agent"}
    assert target_dict("http", ["url=https://app.test/answer", "headers.X-Team=7", "timeout_s=5"]) == {
        "kind": "http",
        "url": "https://app.test/answer",
        "headers": {"X-Team": 7},
        "timeout_s": 5,
    }
    assert target_dict('{"kind": "python", "name": "a"}', ["name=b"]) == {"kind": "python", "name": "b"}
    with pytest.raises(OptionsError, match=r"expected dotted\.key=value"):
        target_dict("http", ["url"])
    with pytest.raises(OptionsError, match="not a JSON object"):
        target_dict("{kind", [])
    with pytest.raises(OptionsError, match="'url' is not an object"):
        target_dict("http", ["url=x", "url.y=1"])
