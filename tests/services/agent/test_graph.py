"""The graph with the offline model over every utterance of the order-correctness dataset."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

import pytest
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from langgraph.checkpoint.memory import MemorySaver

from services.agent.domain import Menu, Order
from services.agent.graph import AgentContext, compile_graph, initial_state, update_order
from services.agent.invoke import invoke_agent
from services.agent.offline_model import OfflineDriveThruModel
from services.agent.prompt import BUILTIN_PROMPT
from services.agent.runtime import AgentRuntime
from services.agent.tools import TOOLS
from shared.evaluators.drive_thru import no_hallucinated_items, order_correctness, tool_call_accuracy
from yardstick.api.agent_messages import AgentInvokeRequest, ModelConfig, OfflineBehaviour

pytestmark = pytest.mark.unit

EMPTY_CATEGORIES = {"not_on_menu", "greeting_question", "ambiguous"}
BASELINE = OfflineBehaviour(ambiguous_policy="guess_first", understand_modifiers=False)


async def score_dataset(
    dataset: dict[str, Any], runtime: AgentRuntime, behaviour: OfflineBehaviour
) -> dict[str, list[tuple[dict[str, Any], dict[str, Any], float]]]:
    """category -> [(item, output, order_correctness)]"""
    by_category: dict[str, list[tuple[dict[str, Any], dict[str, Any], float]]] = defaultdict(list)
    for item in dataset["items"]:
        request = AgentInvokeRequest(
            customer_utterance=item["input"]["customer_utterance"], model=ModelConfig(offline=behaviour)
        )
        response = await invoke_agent(request, runtime)
        assert response.ok, response.error
        output = response.model_dump()
        score = order_correctness(output=output, expected_output=item["expected_output"]).value
        assert score is not None
        by_category[item["metadata"]["category"]].append((item, output, float(score)))
    return by_category


def test_dataset_has_seed_001_categories_and_counts(dataset: dict[str, Any]) -> None:
    counts: dict[str, int] = defaultdict(int)
    for item in dataset["items"]:
        counts[item["metadata"]["category"]] += 1
    assert dict(counts) == {
        "simple_order": 5,
        "quantity": 2,
        "multi_item": 3,
        "modifiers": 3,
        "not_on_menu": 3,
        "greeting_question": 3,
        "informal": 2,
        "ambiguous": 2,
        "complex_combo": 2,
    }
    assert [i["id"] for i in dataset["items"]] == [f"order-correctness-{n:03d}" for n in range(25)]
    assert sum(not i["expected_output"]["expected_items"] for i in dataset["items"]) == 8


async def test_default_offline_model_gets_every_case_right(
    dataset: dict[str, Any], runtime: AgentRuntime, menu: Menu
) -> None:
    results = await score_dataset(dataset, runtime, OfflineBehaviour())
    for category, cases in results.items():
        for item, output, score in cases:
            utterance = item["input"]["customer_utterance"]
            assert score == 1.0, (utterance, output["order_items"])
            protocol = tool_call_accuracy(output=output, expected_output=item["expected_output"])
            assert protocol.value == 1.0, (utterance, output["tool_calls"])
            assert no_hallucinated_items(output=output, expected_output=item["expected_output"]).value == 1.0
            assert output["response"], utterance
            if category in EMPTY_CATEGORIES:
                assert output["order_items"] == [] and "add_item_to_order" not in output["tool_calls"]
            if category in {"not_on_menu", "ambiguous"}:
                assert output["tool_calls"] == ["lookup_menu_item"], utterance
            if category == "ambiguous":
                assert "Which" in output["response"]
            if category == "not_on_menu":
                assert output["response"].startswith("Sorry")


async def test_baseline_behaviour_scores_worse_on_ambiguous_and_modifiers(
    dataset: dict[str, Any], runtime: AgentRuntime
) -> None:
    results = await score_dataset(dataset, runtime, BASELINE)
    mean = {c: sum(s for _, _, s in cases) / len(cases) for c, cases in results.items()}
    assert mean["ambiguous"] == 0.0
    assert mean["modifiers"] == pytest.approx(0.8)
    assert mean["complex_combo"] < 1.0
    unaffected = set(mean) - {"ambiguous", "modifiers", "complex_combo"}
    assert all(mean[c] == 1.0 for c in unaffected), mean
    for _, output, _ in results["ambiguous"]:
        assert output["tool_calls"] == ["lookup_menu_item", "lookup_menu_item", "add_item_to_order"]
        assert output["model"] == "offline:guess_first,no-modifiers"


async def test_quantity_words_switch_changes_spelled_out_quantities(runtime: AgentRuntime) -> None:
    words_off = ModelConfig(offline=OfflineBehaviour(understand_quantity_words=False))
    response = await invoke_agent(
        AgentInvokeRequest(customer_utterance="Two hash browns and 3 hotcakes", model=words_off), runtime
    )
    assert [(line.item_id, line.quantity) for line in response.order_items] == [
        ("hash-browns", 1),
        ("hotcakes", 3),
    ]


def test_update_order_applies_only_the_tool_step_that_just_ran(menu: Menu) -> None:
    def add_result(call_id: str, item_id: str, name: str) -> ToolMessage:
        content = (
            f'{{"added": true, "item_id": "{item_id}", "item_name": "{name}", '
            '"category_name": "breakfast", "quantity": 1, "size": "regular", "modifiers": []}'
        )
        return ToolMessage(content=content, tool_call_id=call_id, name="add_item_to_order")

    call = {"name": "add_item_to_order", "args": {}, "type": "tool_call"}
    already = Order() + menu.items[0].model_copy(update={"available_modifiers": []})
    state = initial_state(
        menu,
        [
            HumanMessage(content="egg mcmuffin"),
            AIMessage(content="", tool_calls=[call | {"id": "a"}]),
            add_result("a", "egg-mcmuffin", "Egg McMuffin"),
            AIMessage(content="Got it"),
            HumanMessage(content="and hotcakes"),
            AIMessage(content="", tool_calls=[call | {"id": "b"}]),
            add_result("b", "hotcakes", "Hotcakes"),
        ],
        already,
    )
    order = update_order(state)["current_order"]
    assert [(i.item_id, i.quantity) for i in order.items] == [("egg-mcmuffin", 1), ("hotcakes", 1)]


async def test_multi_turn_that_is_all_reads_back_then_yes_finalizes(menu: Menu) -> None:
    graph = compile_graph(MemorySaver())
    config: Any = {"configurable": {"thread_id": "multi-turn"}}
    context = AgentContext(model=OfflineDriveThruModel().bind_tools(TOOLS), prompt=BUILTIN_PROMPT)

    async def say(text: str, first: bool = False) -> dict[str, Any]:
        messages = [HumanMessage(content=text)]
        state: Any = initial_state(menu, messages) if first else {"messages": messages}
        result: dict[str, Any] = await graph.ainvoke(state, config, context=context)
        return result

    first = await say("two egg mcmuffins", first=True)
    second = await say("and a hash brown")
    assert [(i.item_id, i.quantity) for i in second["current_order"].items] == [
        ("egg-mcmuffin", 2),
        ("hash-browns", 1),
    ]
    assert first["current_order"].order_id == second["current_order"].order_id
    done = await say("that's all")
    assert done["messages"][-1].content.endswith("Is that correct?")
    assert "two Egg McMuffin and one Hash Browns" in done["messages"][-1].content
    assert not done["finalized"]
    final = await say("yes")
    assert final["finalized"] is True
    last = final["messages"][-1]
    assert isinstance(last, ToolMessage) and last.name == "finalize_order"
    assert final["current_order"].item_count == 3
