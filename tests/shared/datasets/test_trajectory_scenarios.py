"""Trajectory-scenario YAML: model, loader, conversion to dataset items."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from shared.datasets.trajectory_scenarios import (
    ScenarioFileError,
    load_trajectory_scenarios,
    parse_trajectory_scenarios,
    scenarios_file_to_dataset,
    scenarios_to_items,
)
from shared.evaluators.trajectory import trajectory_match, trajectory_pass

pytestmark = pytest.mark.unit

SEED_EXAMPLE = """
test_cases:
  - id: "my_test"
    query: "User message"
    category: "basic_response_test"
    description: "What this test verifies"
    context_mode: "local_fixture"
    fixture_id: "wedding_classic"
    requirements:
      mandatory_tools: ["call_output_agent"]
      forbidden_tools: ["call_map_agent"]
      trajectory_mode: "strict"
      require_match: false
    reference_trajectory:
      - type: "human"
        content: "User message"
      - type: "ai"
        tool_calls:
          - name: "call_output_agent"
            args: { "query": "User message" }
      - type: "tool"
        tool_call_id: "call_1"
        content: "Tool output"
      - type: "ai"
        content: "Final answer"
    context:
      session_id: "test_session_001"
      wedding_id: "wedding_test_001"
      chat_history: []
  - id: "greeting"
    query: "hi"
"""


def test_parses_the_seeds_example() -> None:
    parsed = parse_trajectory_scenarios(SEED_EXAMPLE)
    first, second = parsed.test_cases
    assert first.requirements.mandatory_tools == ["call_output_agent"]
    assert first.context.session_id == "test_session_001"
    assert first.reference_trajectory is not None and first.reference_trajectory[1].tool_calls[0].args == {
        "query": "User message"
    }
    assert second.requirements.trajectory_mode == "strict" and second.requirements.require_match is False
    assert second.reference_trajectory is None and second.category == "uncategorised"


def test_converts_to_dataset_items_with_filled_call_ids() -> None:
    first, second = scenarios_to_items(parse_trajectory_scenarios(SEED_EXAMPLE))
    assert first.id == "my_test"
    assert first.input == {"customer_utterance": "User message"}
    assert first.metadata == {"category": "basic_response_test", "description": "What this test verifies"}
    reference = first.expected_output["reference_trajectory"]
    assert reference[1]["tool_calls"] == [
        {"id": "call_1", "name": "call_output_agent", "args": {"query": "User message"}}
    ]
    assert reference[2] == {"type": "tool", "content": "Tool output", "tool_call_id": "call_1"}
    assert "tool_calls" not in reference[0]
    assert first.expected_output["requirements"]["forbidden_tools"] == ["call_map_agent"]
    assert second.expected_output["reference_trajectory"] is None


def test_items_feed_the_trajectory_evaluators() -> None:
    item = scenarios_to_items(parse_trajectory_scenarios(SEED_EXAMPLE))[0]
    good = {
        "trajectory": [
            {"type": "human", "content": "User message"},
            {"type": "ai", "tool_calls": [{"id": "a", "name": "call_output_agent", "args": {}}]},
        ]
    }
    assert trajectory_match(output=good, expected_output=item.expected_output).value is True
    assert (
        trajectory_pass(output={"tool_calls": ["call_map_agent"]}, expected_output=item.expected_output).value
        is False
    )


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("test_cases: [", "not valid YAML"),
        ("cases: []", "top-level 'test_cases'"),
        ("test_cases:\n  - id: a\n", "does not follow the scenario format"),
        ("test_cases:\n  - {id: a, query: q, requirements: {trajectory_mode: fuzzy}}\n", "trajectory_mode"),
        ("test_cases:\n  - {id: a, query: q}\n  - {id: a, query: r}\n", "duplicate test case id 'a'"),
    ],
)
def test_bad_files_are_rejected_with_a_precise_message(text: str, message: str) -> None:
    with pytest.raises(ScenarioFileError, match=message):
        parse_trajectory_scenarios(text, "x.yaml")


def test_load_from_disk_and_generic_dataset_shape(tmp_path: Path) -> None:
    path = tmp_path / "scenarios.yaml"
    path.write_text(SEED_EXAMPLE)
    assert len(load_trajectory_scenarios(path).test_cases) == 2
    with pytest.raises(ScenarioFileError, match="cannot read"):
        load_trajectory_scenarios(tmp_path / "missing.yaml")
    dataset = scenarios_file_to_dataset(path, yaml.safe_load(SEED_EXAMPLE))
    assert dataset["name"] == "scenarios" and dataset["kind"] == "trajectory"
    assert [i["id"] for i in dataset["items"]] == ["my_test", "greeting"]


REPO_SCENARIOS = (
    Path(__file__).resolve().parents[3] / "datasets" / "drive-thru" / "trajectory-scenarios-v1.yaml"
)


@pytest.mark.skipif(not REPO_SCENARIOS.exists(), reason="drive-thru scenario file not in this checkout")
def test_repository_scenarios_load_and_each_reference_passes_against_itself() -> None:
    items = scenarios_to_items(load_trajectory_scenarios(REPO_SCENARIOS))
    assert items
    for item in items:
        reference = item.expected_output["reference_trajectory"]
        if reference is None:
            continue
        ev = trajectory_pass(output={"trajectory": reference}, expected_output=item.expected_output)
        assert ev.value is True, (item.id, ev.comment)


def test_chat_history_becomes_the_items_earlier_messages() -> None:
    text = """
test_cases:
  - id: follow_up
    query: that's all
    context:
      chat_history:
        - {role: user, content: Two hash browns}
        - {type: ai, content: 'Got it: two Hash Browns. Anything else?'}
  - id: fresh
    query: hi
"""
    follow_up, fresh = scenarios_to_items(parse_trajectory_scenarios(text))
    assert follow_up.input == {
        "customer_utterance": "that's all",
        "messages": [
            {"type": "human", "content": "Two hash browns"},
            {"type": "ai", "content": "Got it: two Hash Browns. Anything else?"},
        ],
    }
    assert fresh.input == {"customer_utterance": "hi"}
    bad = text.replace("role: user", "role: user, type: robot")
    with pytest.raises(ScenarioFileError, match=r"follow_up.*chat_history\[0\]"):
        scenarios_to_items(parse_trajectory_scenarios(bad))


def test_a_misspelt_scenario_field_is_refused_naming_the_test_case_from_1() -> None:
    text = "test_cases:\n  - {id: a, query: q}\n  - {id: b, query: q, reference_trajectroy: []}\n"
    with pytest.raises(ScenarioFileError) as caught:
        parse_trajectory_scenarios(text, "x.yaml")
    assert str(caught.value) == (
        "x.yaml: does not follow the scenario format:\n"
        "  - test case 2 (id 'b'): unknown field 'reference_trajectroy'; did you mean 'reference_trajectory'?"
    )
