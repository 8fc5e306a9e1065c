"""The drive-thru evaluators, pinned to the requirement's rules and examples."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from shared.evaluators import menu_ids
from shared.evaluators.drive_thru import no_hallucinated_items, order_correctness, tool_call_accuracy
from shared.evaluators.menu_ids import MenuNotFound, menu_item_ids
from tests.evaluator_registry import run_item_evaluators
from yardstick.api.agent_messages import AgentInvokeResponse, OrderLine
from yardstick.api.evaluation import EvaluatorSpec

pytestmark = pytest.mark.unit


def line(
    item_id: str,
    qty: int = 1,
    size: str | None = "regular",
    mods: tuple[str, ...] = (),
    name: str | None = None,
) -> dict[str, Any]:
    out: dict[str, Any] = {
        "item_id": item_id,
        "name": name or item_id.replace("-", " ").title(),
        "quantity": qty,
        "modifiers": [{"modifier_id": m, "name": m} for m in mods],
    }
    if size is not None:
        out["size"] = size
    return out


def score(expected: list[dict[str, Any]], actual: list[dict[str, Any]]) -> float:
    value = order_correctness(
        output={"order_items": actual}, expected_output={"expected_items": expected}
    ).value
    assert isinstance(value, float)
    return value


def test_both_empty_is_correct() -> None:
    ev = order_correctness(output={"order_items": []}, expected_output={"expected_items": []})
    assert ev.value == 1.0
    assert ev.comment == "Correctly added no items"


def test_items_when_none_expected_is_hallucination() -> None:
    ev = order_correctness(output={"order_items": [line("big-mac")]}, expected_output={"expected_items": []})
    assert ev.value == 0.0
    assert "Big Mac" in (ev.comment or "")


def test_nothing_added_when_items_expected() -> None:
    ev = order_correctness(
        output={"order_items": []}, expected_output={"expected_items": [line("hash-browns")]}
    )
    assert ev.value == 0.0
    assert "order is empty" in (ev.comment or "")


def test_exact_order_scores_one() -> None:
    order = [line("egg-mcmuffin", 2), line("hash-browns", 1, mods=("extra-salt",))]
    assert score(order, order) == 1.0


def test_seed_quantity_example_ordered_two_got_three() -> None:
    # 0.4 name + 0.3 x 2/3 + 0.2 modifiers + 0.1 size = 0.9
    assert score([line("egg-mcmuffin", 2)], [line("egg-mcmuffin", 3)]) == pytest.approx(0.9)


def test_modifier_jaccard() -> None:
    expected = [line("sausage-mcmuffin", mods=("egg",))]
    actual = [line("sausage-mcmuffin", mods=("egg", "cheese"))]
    assert score(expected, actual) == pytest.approx(0.4 + 0.3 + 0.2 * 0.5 + 0.1)


def test_modifiers_both_empty_count_as_equal_and_disjoint_as_zero() -> None:
    assert score([line("a")], [line("a")]) == 1.0
    assert score([line("a", mods=("x",))], [line("a", mods=("y",))]) == pytest.approx(0.8)


def test_size_mismatch_costs_a_tenth_and_missing_size_means_regular() -> None:
    assert score([line("coffee", size="large")], [line("coffee", size="small")]) == pytest.approx(0.9)
    assert score([line("coffee", size="regular")], [line("coffee", size=None)]) == 1.0


def test_name_is_compared_case_insensitively() -> None:
    assert (
        score([line("egg-mcmuffin", name="Egg McMuffin")], [line("egg-mcmuffin", name="egg mcmuffin")]) == 1.0
    )
    assert score(
        [line("egg-mcmuffin", name="Egg McMuffin")], [line("egg-mcmuffin", name="McMuffin")]
    ) == pytest.approx(0.6)


def test_missed_and_extra_lines_each_cost_their_share() -> None:
    expected = [line("egg-mcmuffin"), line("hash-browns")]
    assert score(expected, [line("egg-mcmuffin")]) == pytest.approx(0.5)
    assert score(expected, [line("egg-mcmuffin"), line("hash-browns"), line("hotcakes")]) == pytest.approx(
        2 / 3
    )
    ev = order_correctness(
        output={"order_items": [line("egg-mcmuffin"), line("hotcakes")]},
        expected_output={"expected_items": expected},
    )
    assert ev.value == pytest.approx(1 / 3)
    assert ev.metadata["missing"] == ["hash-browns"]
    assert ev.metadata["extra"] == ["hotcakes"]
    assert "missing ['hash-browns']" in (ev.comment or "") and "unexpected ['hotcakes']" in (ev.comment or "")


def test_matching_is_order_independent() -> None:
    a, b = line("egg-mcmuffin", 2), line("hash-browns")
    assert score([a, b], [b, a]) == 1.0


def test_repeated_item_ids_are_merged_by_summing_quantities() -> None:
    expected = [line("hash-browns", 2)]
    assert score(expected, [line("hash-browns"), line("hash-browns")]) == 1.0
    merged = order_correctness(
        output={"order_items": [line("a", mods=("x",)), line("a", mods=("y",))]},
        expected_output={"expected_items": [line("a", 2, mods=("x", "y"))]},
    )
    assert merged.value == 1.0


def test_comment_names_what_differed() -> None:
    ev = order_correctness(
        output={"order_items": [line("egg-mcmuffin", 3, size="large")]},
        expected_output={"expected_items": [line("egg-mcmuffin", 2)]},
    )
    assert "quantity 3 != 2" in (ev.comment or "")
    assert "size 'large' != 'regular'" in (ev.comment or "")


def test_accepts_the_agent_response_model_itself() -> None:
    response = AgentInvokeResponse(
        order_items=[OrderLine(item_id="hash-browns", name="Hash Browns", quantity=1)]
    )
    ev = order_correctness(output=response, expected_output={"expected_items": [line("hash-browns")]})
    assert ev.value == 1.0


async def test_missing_expected_items_is_a_recorded_failure_naming_the_key() -> None:
    [ev] = await run_item_evaluators(
        [EvaluatorSpec(name="order_correctness")],
        input={},
        output={"order_items": []},
        expected_output={},
        metadata={},
    )
    assert ev.value is None
    assert ev.error is not None and "expected_output.expected_items" in ev.error


@pytest.mark.parametrize(
    ("calls", "expected_items", "value"),
    [
        (["lookup_menu_item", "add_item_to_order"], [line("a")], 1.0),
        (
            ["lookup_menu_item", "lookup_menu_item", "add_item_to_order", "add_item_to_order"],
            [line("a")],
            1.0,
        ),
        (["add_item_to_order", "lookup_menu_item"], [line("a")], 0.5),
        (["lookup_menu_item"], [line("a")], 0.3),
        (["add_item_to_order"], [line("a")], 0.3),
        ([], [line("a")], 0.0),
        (["get_current_order"], [line("a")], 0.0),
        ([], [], 1.0),
        (["lookup_menu_item"], [], 1.0),
        (["lookup_menu_item", "add_item_to_order"], [], 0.0),
    ],
)
def test_tool_call_accuracy_table(
    calls: list[str], expected_items: list[dict[str, Any]], value: float
) -> None:
    ev = tool_call_accuracy(output={"tool_calls": calls}, expected_output={"expected_items": expected_items})
    assert ev.value == value


def test_tool_call_accuracy_falls_back_to_the_trajectory() -> None:
    trajectory = [
        {"type": "human", "content": "hash browns"},
        {"type": "ai", "tool_calls": [{"id": "1", "name": "lookup_menu_item", "args": {}}]},
        {"type": "tool", "content": "{}", "tool_call_id": "1"},
        {"type": "ai", "tool_calls": [{"id": "2", "name": "add_item_to_order", "args": {}}]},
    ]
    ev = tool_call_accuracy(
        output={"trajectory": trajectory}, expected_output={"expected_items": [line("a")]}
    )
    assert ev.value == 1.0


def test_no_hallucinated_items_with_explicit_ids() -> None:
    ok = no_hallucinated_items(output={"order_items": [line("a"), line("b")]}, valid_item_ids=["a", "b", "c"])
    assert ok.value == 1.0
    bad = no_hallucinated_items(output={"order_items": [line("a"), line("big-mac")]}, valid_item_ids=["a"])
    assert bad.value == 0.0
    assert bad.metadata["hallucinated"] == ["big-mac"]
    assert "big-mac" in (bad.comment or "")
    assert no_hallucinated_items(output={"order_items": []}, valid_item_ids=[]).value == 1.0


def write_menu(path: Path, ids: list[str]) -> None:
    path.write_text(json.dumps({"menu_id": "m", "items": [{"item_id": i, "name": i} for i in ids]}))


def test_no_hallucinated_items_reads_and_reloads_a_menu_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    now = [1000.0]
    monkeypatch.setattr(menu_ids, "_clock", lambda: now[0])
    menu = tmp_path / "menu.json"
    write_menu(menu, ["egg-mcmuffin"])
    output = {"order_items": [line("hash-browns")]}
    assert no_hallucinated_items(output=output, menu_path=str(menu)).value == 0.0
    assert menu_item_ids(menu) is menu_item_ids(menu)  # cached
    write_menu(menu, ["egg-mcmuffin", "hash-browns"])
    stat = menu.stat()
    os.utime(menu, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000_000))
    now[0] += menu_ids.STAT_EVERY_S / 2
    assert no_hallucinated_items(output=output, menu_path=str(menu)).value == 0.0  # not looked at yet
    now[0] += menu_ids.STAT_EVERY_S
    assert no_hallucinated_items(output=output, menu_path=str(menu)).value == 1.0


def test_missing_or_invalid_menu_raises_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(MenuNotFound, match="valid_item_ids"):
        no_hallucinated_items(output={"order_items": []}, menu_path=str(tmp_path / "nope.json"))
    bad = tmp_path / "bad.json"
    bad.write_text('{"not_items": []}')
    with pytest.raises(MenuNotFound, match="is not a menu"):
        menu_item_ids(bad)
