"""Scripted-conversation files: model, conversion to items, validation, and the shipped dataset."""

from __future__ import annotations

from pathlib import Path

import pytest

from shared.datasets.conversations import ConversationItem
from shared.datasets.files import DatasetFileError, load_dataset_file
from shared.evaluators.menu_ids import menu_item_ids

pytestmark = pytest.mark.unit

SHIPPED = Path(__file__).resolve().parents[3] / "datasets" / "drive-thru" / "conversations-v1.yaml"
MENU = Path(__file__).resolve().parents[3] / "datasets" / "drive-thru" / "menu.json"

EXAMPLE = """
name: drive-thru/tiny
conversations:
  - id: c1
    category: simple
    must_finalize: true
    turns:
      - customer: An Egg McMuffin
        expected_order: [{item_id: egg-mcmuffin, name: Egg McMuffin, quantity: 1}]
      - customer: That's all
      - customer: 'Yes'
  - id: c2
    turns:
      - customer: Hi
"""


def _write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "conversations.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def test_a_conversation_becomes_one_item_of_kind_conversation(tmp_path: Path) -> None:
    dataset = load_dataset_file(_write(tmp_path, EXAMPLE))
    assert (dataset.name, dataset.kind) == ("drive-thru/tiny", "conversation")
    first, second = dataset.items
    assert first.input == {"turns": ["An Egg McMuffin", "That's all", "Yes"], "messages": []}
    assert first.expected_output is not None
    assert first.expected_output["must_finalize"] is True
    assert [e["turn_index"] for e in first.expected_output["turn_expectations"]] == [0]
    # the final order defaults to the last turn's only when the last turn has one
    assert "expected_items" not in first.expected_output
    assert first.metadata == {"category": "simple", "description": "", "turn_count": 3}
    assert second.expected_output == {"must_finalize": None, "turn_expectations": []}


def test_the_final_order_defaults_to_the_last_turns_expectation(tmp_path: Path) -> None:
    text = EXAMPLE.replace(
        "      - customer: Hi\n",
        "      - customer: Two hash browns\n"
        "        expected_order: [{item_id: hash-browns, name: Hash Browns, quantity: 2}]\n",
    )
    item = load_dataset_file(_write(tmp_path, text)).items[1]
    assert item.expected_output is not None
    assert [line["quantity"] for line in item.expected_output["expected_items"]] == [2]


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (("customer: 'Yes'", "customer: Yes"), "valid string"),  # YAML 1.1 reads a bare Yes as true
        (("id: c2", "id: c1"), "duplicate conversation id 'c1'"),
        (("quantity: 1}", "quantity: 0}"), "greater than or equal to 1"),
        (
            ("    must_finalize: true\n", "    must_finalize: true\n    script: []\n"),
            "unknown field 'script'",
        ),
    ],
)
def test_a_malformed_file_is_refused_naming_the_problem(
    tmp_path: Path, change: tuple[str, str], message: str
) -> None:
    with pytest.raises(DatasetFileError, match=message):
        load_dataset_file(_write(tmp_path, EXAMPLE.replace(*change)))


def test_generic_items_of_a_conversation_dataset_are_checked(tmp_path: Path) -> None:
    text = """
name: x
kind: conversation
items:
  - id: a
    input: {turns: [hi]}
    expected_output: {turn_expectations: [{turn_index: 3, expected_items: []}]}
"""
    with pytest.raises(DatasetFileError, match=r"(?s)item 1 \(id 'a'\).*names turn 3"):
        load_dataset_file(_write(tmp_path, text))


def test_the_shipped_conversations_are_valid_and_on_the_menu() -> None:
    dataset = load_dataset_file(SHIPPED)
    assert dataset.kind == "conversation" and len(dataset.items) >= 15
    on_menu = menu_item_ids(MENU)
    categories = set()
    for raw in dataset.items:
        item = ConversationItem.model_validate(raw.model_dump())
        categories.add(item.metadata["category"])
        orders = [item.expected_output.expected_items or []] + [
            e.expected_items for e in item.expected_output.turn_expectations
        ]
        assert {line.item_id for order in orders for line in order} <= on_menu, item.id
        assert item.expected_output.expected_items is not None, f"{item.id} states no final order"
    assert {"removal", "correction", "modification", "question_mid_order"} <= categories
