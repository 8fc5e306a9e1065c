"""The workflow files of docs/guides/ci-gating.md are valid YAML that uses the action's real inputs
and the gate's real variables and flags (the action itself: tests/test_action.py)."""

from __future__ import annotations

import re
import shlex
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.test_action import GATE_VARIABLES, action
from yardstick.ci.options import GateOptions, parse_options

pytestmark = pytest.mark.unit

GUIDE = Path(__file__).resolve().parents[2] / "docs" / "guides" / "ci-gating.md"
ACTION_REF = "your-org/yardstick@v1"


def blocks(language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", GUIDE.read_text(encoding="utf-8"), re.DOTALL)


def documents() -> list[dict[str, Any]]:
    return [yaml.safe_load(block) for block in blocks("yaml")]


def test_every_yaml_block_parses_and_each_kind_is_there() -> None:
    docs = documents()
    workflows = [d for d in docs if "jobs" in d]
    assert len(workflows) == 2 and len([d for d in docs if "eval" in d]) == 1
    assert len([d for d in docs if set(d) == {"with"}]) == 1


def test_the_github_workflows_give_the_action_only_its_inputs() -> None:
    inputs = set(action()["inputs"])
    modes = []
    for workflow in (d for d in documents() if "jobs" in d):
        triggers = workflow.get("on", workflow.get(True))  # YAML 1.1 reads a bare `on` as true
        assert set(triggers) == {"push", "pull_request"} and triggers["push"]["branches"] == ["main"]
        assert workflow["permissions"]["pull-requests"] == "write"
        steps = [step for job in workflow["jobs"].values() for step in job["steps"]]
        [gate] = [step for step in steps if step.get("uses") == ACTION_REF]
        assert set(gate["with"]) <= inputs, set(gate["with"]) - inputs
        modes.append(gate["with"]["mode"])
        [upload] = [step for step in steps if step.get("uses", "").startswith("actions/upload-artifact@")]
        assert upload["if"] == "always()" and "yardstick-ci/" in upload["with"]["path"]
    assert modes == ["server", "local"]
    [fragment] = [d for d in documents() if set(d) == {"with"}]
    assert set(fragment["with"]) <= inputs


def test_the_gitlab_job_runs_the_same_script_with_its_variables() -> None:
    [gitlab] = [d["eval"] for d in documents() if "eval" in d]
    assert gitlab["script"][-1] == "python -m yardstick.ci"
    variables = {name for name in gitlab["variables"] if name.startswith("YARDSTICK_CI_")}
    assert variables <= GATE_VARIABLES, variables - GATE_VARIABLES
    default_out = GateOptions.model_fields["out_dir"].default
    assert gitlab["artifacts"]["reports"]["junit"] == f"{default_out}/junit.xml"


def test_the_command_line_example_parses() -> None:
    [command] = [b for b in blocks("bash") if "python -m yardstick.ci" in b]
    filled = command.replace("$BRANCH", "feature").replace("$SHA", "0123456789abcdef0123")
    words = shlex.split(filled.replace("\\\n", " "))
    options = parse_options(words[3:], {})
    assert (options.default_branch, options.task, options.evaluators) == (
        "main",
        "my_app.evals:answer",
        ["exact_match"],
    )
