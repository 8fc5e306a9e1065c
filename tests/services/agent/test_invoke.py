"""invoke_agent: response shape, the mistral path (driven by a fake tool-calling chat model, no
network), failures reported as ok=False, and the system prompt."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import pytest
from langchain_core.language_models import BaseChatModel, LanguageModelInput
from langchain_core.messages import AIMessage, BaseMessage, SystemMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.runnables import Runnable
from langchain_core.tools import BaseTool
from pydantic import SecretStr

from services.agent.chat_models import ModelFactory, ModelUnavailableError, make_remote
from services.agent.domain import Menu, Order
from services.agent.invoke import invoke_agent
from services.agent.prompt import BUILTIN_TEMPLATE, PromptSource, render_system_prompt
from services.agent.runtime import AgentRuntime
from services.agent.settings import AgentSettings
from yardstick.api.agent_messages import AgentInvokeRequest, ModelConfig, TrajectoryMessage

from .conftest import offline_settings

pytestmark = pytest.mark.unit

MISTRAL = ModelConfig(provider="mistral", name="mistral-small-latest")


class ScriptedChatModel(BaseChatModel):
    """Replays AI messages in order, recording what it was sent; can fail the first calls."""

    script: list[AIMessage]
    seen: list[list[BaseMessage]] = []
    failures: int = 0

    @property
    def _llm_type(self) -> str:
        return "scripted"

    def bind_tools(
        self,
        tools: Sequence[dict[str, Any] | type | Callable[..., Any] | BaseTool],
        *,
        tool_choice: str | None = None,
        **kwargs: Any,
    ) -> Runnable[LanguageModelInput, AIMessage]:
        return self

    def _generate(
        self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kw: Any
    ) -> ChatResult:
        self.seen.append(list(messages))
        if self.failures:
            self.failures -= 1
            raise ConnectionError("mistral unreachable")
        return ChatResult(generations=[ChatGeneration(message=self.script.pop(0))])


def scripted_runtime(model: BaseChatModel) -> AgentRuntime:
    settings = offline_settings(mistral_api_key="test-key")
    return AgentRuntime.from_settings(settings, ModelFactory(settings, lambda config, s: model))


def call(name: str, args: dict[str, Any], call_id: str) -> dict[str, Any]:
    return {"name": name, "args": args, "id": call_id, "type": "tool_call"}


def egg_mcmuffin_script() -> list[AIMessage]:
    usage = {"input_tokens": 100, "output_tokens": 10, "total_tokens": 110}
    return [
        AIMessage(
            content="",
            tool_calls=[call("lookup_menu_item", {"item_name": "Egg McMuffin"}, "c1")],
            usage_metadata=usage,
        ),
        AIMessage(
            content="",
            tool_calls=[
                call(
                    "add_item_to_order",
                    {"item_id": "egg-mcmuffin", "item_name": "Egg McMuffin", "category_name": "breakfast"},
                    "c2",
                )
            ],
            usage_metadata=usage,
        ),
        AIMessage(content="One Egg McMuffin. Anything else?", usage_metadata=usage),
    ]


async def test_mistral_path_with_a_fake_tool_calling_model() -> None:
    model = ScriptedChatModel(script=egg_mcmuffin_script(), seen=[])
    request = AgentInvokeRequest(customer_utterance="An Egg McMuffin please", model=MISTRAL)
    response = await invoke_agent(request, scripted_runtime(model))
    assert response.ok, response.error
    assert response.model == "mistral:mistral-small-latest"
    assert response.tool_calls == ["lookup_menu_item", "add_item_to_order"]
    assert [line.item_id for line in response.order_items] == ["egg-mcmuffin"]
    assert response.item_count == 1 and response.response == "One Egg McMuffin. Anything else?"
    assert response.usage is not None and response.usage.total_tokens == 330
    assert [m.type for m in response.trajectory] == ["human", "ai", "tool", "ai", "tool", "ai"]
    assert response.trajectory[2].tool_call_id == "c1" and response.trajectory[2].name == "lookup_menu_item"
    first_prompt = model.seen[0][0]
    assert isinstance(first_prompt, SystemMessage)
    assert "- Egg McMuffin [breakfast] (default size: regular)" in str(first_prompt.content)
    assert "CURRENT ORDER:\nEmpty" in str(first_prompt.content)
    assert "- 1x Egg McMuffin (regular)" in str(model.seen[2][0].content)
    assert response.prompt_version == "builtin"


async def test_orchestrator_retries_a_transient_model_failure() -> None:
    model = ScriptedChatModel(script=egg_mcmuffin_script(), seen=[], failures=1)
    response = await invoke_agent(
        AgentInvokeRequest(customer_utterance="An Egg McMuffin", model=MISTRAL), scripted_runtime(model)
    )
    assert response.ok, response.error
    assert len(model.seen) == 4  # one failed attempt + three answered calls


async def test_persistent_model_failure_comes_back_as_ok_false() -> None:
    model = ScriptedChatModel(script=[], seen=[], failures=10)
    response = await invoke_agent(
        AgentInvokeRequest(customer_utterance="hi", model=MISTRAL), scripted_runtime(model)
    )
    assert not response.ok
    assert response.error == "ConnectionError: mistral unreachable"
    assert response.model == "mistral:mistral-small-latest"


async def test_mistral_without_a_key_is_a_clear_error(runtime: AgentRuntime) -> None:
    response = await invoke_agent(AgentInvokeRequest(customer_utterance="hi", model=MISTRAL), runtime)
    assert not response.ok
    assert response.error is not None and "MISTRAL_API_KEY" in response.error
    with pytest.raises(ModelUnavailableError, match="MISTRAL_API_KEY"):
        make_remote(MISTRAL, offline_settings())


def test_mistral_model_gets_explicit_timeout_and_retries() -> None:
    settings = offline_settings(mistral_api_key="k", mistral_timeout_s=7, mistral_max_retries=1)
    model: Any = make_remote(ModelConfig(provider="mistral", temperature=0.3), settings)
    assert (model.model, model.timeout, model.max_retries, model.temperature) == (
        "mistral-small-latest",
        7,
        1,
        0.3,
    )


def test_chat_model_auto_picks_mistral_only_with_a_key() -> None:
    auto = {"chat_model": "auto"}
    assert ModelFactory(offline_settings(**auto)).default_chat_config().provider == "offline"
    keyed = offline_settings(**auto, mistral_api_key=SecretStr("k"))
    assert ModelFactory(keyed).default_chat_config().provider == "mistral"


async def test_prior_messages_carry_the_order_into_the_turn(runtime: AgentRuntime) -> None:
    first = await invoke_agent(AgentInvokeRequest(customer_utterance="two hash browns"), runtime)
    second = await invoke_agent(
        AgentInvokeRequest(customer_utterance="and an egg mcmuffin", messages=first.trajectory), runtime
    )
    assert [(line.item_id, line.quantity) for line in second.order_items] == [
        ("hash-browns", 2),
        ("egg-mcmuffin", 1),
    ]
    assert second.tool_calls == ["lookup_menu_item", "add_item_to_order"]
    assert second.trajectory[0] == TrajectoryMessage(type="human", content="and an egg mcmuffin")


def test_render_fills_both_placeholder_styles_and_leaves_other_braces(menu: Menu) -> None:
    template = "{location_name} | {{current_order}} | {unknown} | {menu_items}"
    text = render_system_prompt(template, menu, Order())
    assert text.startswith(f"{menu.location.name} | Empty | {{unknown}} | - Egg McMuffin [breakfast]")
    builtin = render_system_prompt(BUILTIN_TEMPLATE, menu, Order())
    assert menu.location.one_line_address in builtin and "{" not in builtin


async def test_langfuse_is_not_contacted_without_both_keys() -> None:
    for source in (PromptSource(), PromptSource(public_key="pk", secret_key=None)):
        assert not source.uses_langfuse
        assert (await source.get()).version == "builtin"
    assert PromptSource(public_key="pk", secret_key="sk").uses_langfuse


def test_settings_default_menu_path_points_at_the_repo_menu() -> None:
    settings = AgentSettings(database_url="postgresql://x/y")
    assert settings.menu_path.is_file()
