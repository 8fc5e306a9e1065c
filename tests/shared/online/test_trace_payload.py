"""A trace record in the evaluators' shape: the generic tool checks and the trajectory read it."""

from __future__ import annotations

import pytest

from shared.evaluators import run_item_evaluators
from shared.evaluators.loading import process_registry
from shared.online.trace_payload import evaluation_input, evaluation_metadata, evaluation_output
from shared.traces import TraceAssembler
from tests.services.sampler.spans import batch, trace_spans
from yardstick.api.evaluation import EvaluatorSpec
from yardstick.api.trace_record import Completeness, Message, ToolCall, TraceRecord

pytestmark = pytest.mark.unit


def record() -> TraceRecord:
    assembler = TraceAssembler()
    assembler.add(batch(trace_spans(7, tool="lookup_order")), now=0.0)
    (trace,) = assembler.ready(now=60.0)
    assert trace.completeness is Completeness.ROOT_ENDED
    return trace.record()


def test_messages_response_and_tools_are_where_evaluators_look() -> None:
    r = record()
    assert evaluation_input(r) == {
        "messages": [{"role": "user", "content": "Where is order 7?"}],
        "query": "Where is order 7?",
        "previous_response": None,  # the conversation's first turn
    }
    out = evaluation_output(r)
    assert out["response"] == "Order 7 ships today."
    assert out["tool_calls"] == [
        {"name": "lookup_order", "arguments": {"order": 7}, "result": {"status": "shipped"}, "error": None}
    ]
    assert [step["type"] for step in out["trajectory"]] == ["human", "ai", "tool", "ai"]
    assert out["trajectory"][1]["tool_calls"] == [{"id": "c7", "name": "lookup_order", "args": {"order": 7}}]
    assert evaluation_metadata(r)["application"] == "support-bot"


async def test_tool_checks_score_a_trace() -> None:
    r = record()
    specs = [
        EvaluatorSpec(name="tool_called", args={"tool": "lookup_order"}),
        EvaluatorSpec(name="tool_sequence", args={"tools": ["refund"]}),
        EvaluatorSpec(name="latency_budget", args={"max_ms": 1}),
    ]
    results = await run_item_evaluators(
        process_registry(),
        specs,
        input=evaluation_input(r),
        output=evaluation_output(r),
        expected_output=None,
        metadata=evaluation_metadata(r),
    )
    assert [(e.name, e.value) for e in results] == [
        ("tool_called", 1.0),
        ("tool_sequence", 0.0),
        ("latency_budget", 0.0),
    ]


def later_turn(previous_reply: str, answer: str) -> TraceRecord:
    """A drive-thru turn whose model input holds the conversation so far, ending in a finalize_order."""
    history = [
        Message(role="system", content="You take breakfast orders."),
        Message(role="user", content="an egg mcmuffin"),
        Message(role="assistant", content=previous_reply),
        Message(role="user", content=answer),
    ]
    return record().model_copy(
        update={"input_messages": history, "tool_calls": [ToolCall(name="finalize_order", arguments={})]}
    )


@pytest.mark.parametrize(
    ("previous_reply", "answer", "score"),
    [
        ("So that's one Egg McMuffin. Is that correct?", "yes", 1.0),
        ("Got it. Anything else?", "yes", 0.0),  # finalized without reading the order back
        ("So that's one Egg McMuffin. Is that correct?", "wait, add a coffee", 0.0),
    ],
)
async def test_finalize_after_confirmation_reads_the_reply_before_the_customers_answer(
    previous_reply: str, answer: str, score: float
) -> None:
    r = later_turn(previous_reply, answer)
    assert evaluation_input(r)["previous_response"] == previous_reply
    assert evaluation_input(r)["query"] == answer
    (result,) = await run_item_evaluators(
        process_registry(),
        [EvaluatorSpec(name="finalize_after_confirmation")],
        input=evaluation_input(r),
        output=evaluation_output(r),
        expected_output=None,
        metadata=evaluation_metadata(r),
    )
    assert result.value == score, result.comment


@pytest.mark.parametrize(("item_id", "score"), [("egg-mcmuffin", 1.0), ("big-mac", 0.0)])
async def test_no_hallucinated_items_reads_the_items_a_trace_asked_to_add(item_id: str, score: float) -> None:
    add = ToolCall(name="add_item_to_order", arguments={"item_id": item_id, "quantity": 1}, result={})
    r = record().model_copy(update={"tool_calls": [ToolCall(name="lookup_menu_item", arguments={}), add]})
    (result,) = await run_item_evaluators(
        process_registry(),
        [EvaluatorSpec(name="no_hallucinated_items")],
        input=evaluation_input(r),
        output=evaluation_output(r),
        expected_output=None,
        metadata=evaluation_metadata(r),
    )
    assert result.value == score, result.comment
