"""Fixtures of the agent tests: the menu, the dataset, and an offline runtime."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from services.agent.domain import Menu
from services.agent.runtime import AgentRuntime
from services.agent.settings import DEFAULT_MENU_PATH, AgentSettings
from shared.shipped_data import DRIVE_THRU

DATASET_PATH = DRIVE_THRU / "order-correctness-v1.yaml"
SCENARIOS_PATH = DRIVE_THRU / "trajectory-scenarios-v1.yaml"


def offline_settings(**overrides: Any) -> AgentSettings:
    values: dict[str, Any] = {
        "database_url": "postgresql://unused/unused",
        "mistral_api_key": None,
        "langfuse_public_key": None,
        "langfuse_secret_key": None,
        "chat_model": "offline",
        "prompt_registry": False,  # no Postgres in the agent's unit tests
    }
    values.update(overrides)
    return AgentSettings(**values)


@pytest.fixture(scope="session")
def menu() -> Menu:
    return Menu.from_json_file(DEFAULT_MENU_PATH)


@pytest.fixture(scope="session")
def dataset() -> dict[str, Any]:
    data: dict[str, Any] = yaml.safe_load(Path(DATASET_PATH).read_text(encoding="utf-8"))
    return data


@pytest.fixture
def runtime() -> AgentRuntime:
    return AgentRuntime.from_settings(offline_settings())


from tests.llm_provider import provider  # noqa: E402  (the bad-day provider fixture)

__all__ = ["offline_settings", "provider"]
