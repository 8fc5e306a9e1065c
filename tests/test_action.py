"""action.yml (the repository's GitHub Action) is valid YAML, a composite action whose inputs are all
declared and used, whose gate step sets only variables the gate reads, and whose outputs are those
the gate writes."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from yardstick.ci.gate import OUTPUT_NAMES
from yardstick.ci.options import ENV_PREFIX, GateOptions

pytestmark = pytest.mark.unit

ACTION = Path(__file__).resolve().parents[1] / "action.yml"
GATE_VARIABLES = {f"{ENV_PREFIX}{name.rstrip('_').upper()}" for name in GateOptions.model_fields}
"""The YARDSTICK_CI_* variables the gate reads."""
READ_BY_THE_SDK = {
    "YARDSTICK_API_URL",
    "YARDSTICK_API_KEY",
    "YARDSTICK_PROJECT",
    "NATS_URL",
    "NATS_NAMESPACE",
}


def action() -> dict[str, Any]:
    loaded: dict[str, Any] = yaml.safe_load(ACTION.read_text(encoding="utf-8"))
    return loaded


def test_a_composite_action_whose_run_steps_name_their_shell() -> None:
    spec = action()
    assert spec["runs"]["using"] == "composite" and spec["name"] and spec["description"]
    for step in spec["runs"]["steps"]:
        assert ("run" in step) != ("uses" in step), step
        if "run" in step:
            assert step["shell"] == "bash", step
        else:
            assert re.fullmatch(r"actions/[a-z-]+(/[a-z]+)?@v\d+", step["uses"]), step["uses"]


def test_every_input_is_declared_described_and_used() -> None:
    spec = action()
    text = ACTION.read_text(encoding="utf-8")
    used = set(re.findall(r"inputs\.([a-z-]+)", text))
    declared = set(spec["inputs"])
    assert used == declared, (used - declared, declared - used)
    for name, item in spec["inputs"].items():
        assert item["description"] and "default" in item, name


def test_the_gate_step_sets_what_the_gate_reads_and_the_outputs_are_its_own() -> None:
    spec = action()
    [gate] = [step for step in spec["runs"]["steps"] if step.get("id") == "gate"]
    assert gate["run"] == "python -m yardstick.ci"
    variables = set(gate["env"])
    assert variables - {"GITHUB_TOKEN"} - READ_BY_THE_SDK <= GATE_VARIABLES, variables - GATE_VARIABLES
    assert {
        "YARDSTICK_CI_DATASET",
        "YARDSTICK_CI_TASK",
        "YARDSTICK_CI_SET",
        "YARDSTICK_CI_GATES",
    } <= variables
    assert set(spec["outputs"]) == set(OUTPUT_NAMES)
    for name, item in spec["outputs"].items():
        assert item["value"] == f"${{{{ steps.gate.outputs.{name} }}}}"
