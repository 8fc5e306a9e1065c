"""A real instrumentation library on the OpenInference side: ``openinference-instrumentation-langchain``
around a LangChain turn (a fake chat model that asks for a tool, the tool, the model again), the
spans exactly as the instrumentor writes them, into one record."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage
from langchain_core.runnables import RunnableLambda
from langchain_core.tools import tool
from openinference.instrumentation.langchain import LangChainInstrumentor
from opentelemetry.sdk.trace import TracerProvider

from tests.shared.traces.sdk_spans import record_of
from yardstick.api.trace_record import Convention, Message, ToolCall

pytestmark = pytest.mark.unit


@tool
def get_price(item: str) -> str:
    """The price of one menu item."""
    return "5 dollars"


@pytest.fixture
def instrumentor() -> Iterator[LangChainInstrumentor]:
    instrumentation = LangChainInstrumentor()
    yield instrumentation
    instrumentation.uninstrument()


def test_a_langchain_turn_through_openinference(instrumentor: LangChainInstrumentor) -> None:
    def app(provider: TracerProvider) -> None:
        instrumentor.instrument(tracer_provider=provider)
        model = GenericFakeChatModel(
            messages=iter(
                [
                    AIMessage(
                        content="",
                        tool_calls=[{"id": "call_1", "name": "get_price", "args": {"item": "burger"}}],
                    ),
                    AIMessage(content="A burger is 5 dollars."),
                ]
            )
        )

        def turn(question: str) -> Any:
            messages: list[BaseMessage] = [SystemMessage("You sell burgers."), HumanMessage(question)]
            asked = model.invoke(messages)
            assert isinstance(asked, AIMessage)
            messages += [asked, get_price.invoke(asked.tool_calls[0])]
            return model.invoke(messages).content

        assert RunnableLambda(turn).invoke("How much is a burger?") == "A burger is 5 dollars."

    record = record_of(app, service="burger-chain")
    assert record.conventions == [Convention.OPENINFERENCE]
    assert record.application == "burger-chain"
    assert record.input_messages == [
        Message(role="system", content="You sell burgers."),
        Message(role="user", content="How much is a burger?"),
    ]
    assert record.output_messages == [Message(role="assistant", content="A burger is 5 dollars.")]
    assert record.tool_calls == [
        ToolCall(
            name="get_price",
            call_id="call_1",
            arguments={"item": "burger"},  # the model's request: the span has the bare "burger"
            result="5 dollars",
            span_id=record.tool_calls[0].span_id,
        )
    ]
    [root] = record.roots
    assert root.kind == "chain"
    assert [child.kind for child in root.children] == ["llm", "tool", "llm"]
    assert record.errors == [] and record.notes == []
