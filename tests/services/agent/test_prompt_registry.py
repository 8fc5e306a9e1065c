"""The agent runs the prompt an experiment names, from Yardstick's registry in Postgres, and records
which version it used; the chat API's default is the production label (built-in when none)."""

from __future__ import annotations

import pytest
from langchain_core.messages import SystemMessage
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from services.agent.chat_models import ModelFactory
from services.agent.invoke import invoke_agent
from services.agent.runtime import AgentRuntime
from shared.db import prompts as prompt_store
from shared.db.project_scope import scope_to_project
from yardstick.api.agent_messages import AgentInvokeRequest, ModelConfig
from yardstick.api.projects import DEFAULT_PROJECT
from yardstick.api.prompts import PromptPush

from .conftest import offline_settings
from .test_invoke import ScriptedChatModel, egg_mcmuffin_script

pytestmark = pytest.mark.integration

NAME = "drive-thru/orchestrator"
MISTRAL = ModelConfig(provider="mistral", name="mistral-small-latest")


def runtime_on(database_url: str, model: ScriptedChatModel) -> AgentRuntime:
    settings = offline_settings(mistral_api_key="k", database_url=database_url, prompt_registry=True)
    return AgentRuntime.from_settings(settings, ModelFactory(settings, lambda config, s: model))


async def ask(runtime: AgentRuntime, model: ScriptedChatModel, prompt: str | None) -> tuple[str, str, str]:
    model.script = egg_mcmuffin_script()
    model.seen.clear()
    response = await invoke_agent(
        AgentInvokeRequest(customer_utterance="an egg mcmuffin", model=MISTRAL, prompt=prompt), runtime
    )
    system = next((m for m in (model.seen[0] if model.seen else []) if isinstance(m, SystemMessage)), None)
    return response.prompt_version, str(system.content if system else ""), response.error or ""


async def test_named_prompts_from_the_registry(
    database_url: str, session_factory: async_sessionmaker[AsyncSession]
) -> None:
    model = ScriptedChatModel(script=[])
    runtime = runtime_on(database_url, model)
    # nothing registered: the default is the built-in template
    version, system, _ = await ask(runtime, model, None)
    assert version == "builtin" and "McDonald's drive-thru assistant" in system

    async with session_factory() as session:
        scope_to_project(session, DEFAULT_PROJECT)
        await prompt_store.push_prompt(
            session, PromptPush(name=NAME, template="V1 {menu_items}", labels=["production"])
        )
        await prompt_store.push_prompt(
            session, PromptPush(name=NAME, template="V2 {menu_items}", labels=["staging"])
        )
        await session.commit()

    # named explicitly, a prompt pushed a moment ago is found at once (a miss is not cached for it)
    version, system, _ = await ask(runtime, model, f"{NAME}@staging")
    assert version == f"{NAME}@2" and system.startswith("V2 - ")  # {menu_items} rendered
    version, system, _ = await ask(runtime, model, f"{NAME}@1")
    assert version == f"{NAME}@1" and system.startswith("V1 ")
    version, _, _ = await ask(runtime, model, f"{NAME}@production")
    assert version == f"{NAME}@1"
    # the default lookup follows the production label within the cache TTL (a fresh cache here)
    version, _, _ = await ask(runtime_on(database_url, model), model, None)
    assert version == f"{NAME}@1"
    version, _, error = await ask(runtime, model, f"{NAME}@canary")
    assert "prompt drive-thru/orchestrator@canary not found in the registry" in error
