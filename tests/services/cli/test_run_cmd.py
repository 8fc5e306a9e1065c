from __future__ import annotations

from typing import Any

import pytest
import typer
from typer.testing import CliRunner

from services.cli.app import app as cli
from services.cli.run_cmd import exit_code, parse_pass_criteria

pytestmark = pytest.mark.unit


def experiment(status: str = "completed", **extra: Any) -> dict[str, Any]:
    return {"status": status, "aggregates": {"warnings": []}, "regression": False, **extra}


def test_exit_codes() -> None:
    assert exit_code(experiment(), fail_on_regression=True) == 0
    assert exit_code(experiment("failed"), fail_on_regression=False) == 3
    assert exit_code(experiment("cancelled"), fail_on_regression=False) == 3
    assert exit_code(experiment("budget_exhausted"), fail_on_regression=False) == 3, "like a run with errors"
    warned = experiment(
        aggregates={"warnings": [{"kind": "error_rate", "message": "10 of 10 items errored"}]}
    )
    assert exit_code(warned, fail_on_regression=False) == 3
    assert exit_code(experiment(regression=True), fail_on_regression=True) == 1
    assert exit_code(experiment(regression=True), fail_on_regression=False) == 0
    missed = experiment(
        aggregates={"warnings": [], "gates": [{"passed": False, "reason": "a = 0.5 misses a>=0.9"}]}
    )
    assert exit_code(missed, fail_on_regression=False) == 1


def test_pass_options() -> None:
    assert parse_pass_criteria(
        ["ndcg@10>=0.7", "hallucination_rate <= 0.1", "precision@10=informational"]
    ) == {
        "ndcg@10": ">=0.7",
        "hallucination_rate": "<=0.1",
        "precision@10": "informational",
    }
    with pytest.raises(typer.BadParameter, match="use METRIC>=X"):
        parse_pass_criteria(["ndcg@10"])


def test_an_inconclusive_comparison_is_not_a_silent_pass() -> None:
    assert exit_code(experiment(), fail_on_regression=True, inconclusive=True) == 3
    assert exit_code(experiment(), fail_on_regression=False, inconclusive=True) == 0
    assert exit_code(experiment(regression=True), fail_on_regression=True, inconclusive=True) == 1


NO_SERVER = {"YARDSTICK_API_URL": "http://127.0.0.1:9", "YARDSTICK_API_KEY": "unused", "COLUMNS": "400"}


@pytest.mark.parametrize(
    ("options", "sentence"),
    [
        (
            ["--target", "pyhton"],
            "unknown target kind 'pyhton'; did you mean 'python'? Known kinds: agent, search, answer, http",
        ),
        (["--target", "search", "--set", "mdoe=fast"], "unknown key 'mdoe' (valid keys: mode, limit, "),
        (["--target", "search", "--set", "mdoe=fast"], "; did you mean 'mode'?"),
    ],
)
def test_a_misspelt_target_or_setting_exits_2_before_any_request(options: list[str], sentence: str) -> None:
    result = CliRunner().invoke(cli, ["run", "--dataset", "d", "--name", "n", *options], env=NO_SERVER)
    assert result.exit_code == 2, result.output
    assert sentence in result.output and "Traceback" not in result.output and "Input tag" not in result.output
