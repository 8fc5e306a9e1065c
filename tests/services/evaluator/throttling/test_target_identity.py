"""Every experiment calling one endpoint shares its limits; different endpoints do not."""

from __future__ import annotations

import pytest

from services.evaluator.throttling import throttle_key
from yardstick.api.agent_messages import ModelConfig
from yardstick.api.eval_messages import AgentTarget, HttpTarget, PythonTarget

pytestmark = pytest.mark.unit


def test_one_endpoint_one_key_whatever_the_query_method_or_headers() -> None:
    a = HttpTarget(url="http://API.example.com/v1/chat?x=1", headers={"A": "b"})
    b = HttpTarget(url="http://api.example.com:80/v1/chat", method="PUT")
    assert throttle_key(a) == throttle_key(b)


def test_other_paths_ports_and_kinds_differ() -> None:
    keys = {
        throttle_key(HttpTarget(url="http://api.example.com/v1/chat")),
        throttle_key(HttpTarget(url="http://api.example.com/v1/embed")),
        throttle_key(HttpTarget(url="https://api.example.com/v1/chat")),
        throttle_key(HttpTarget(url="http://api.example.com:8080/v1/chat")),
        throttle_key(PythonTarget(name="f")),
        throttle_key(PythonTarget(name="g")),
    }
    assert len(keys) == 6
    assert all(len(key) == 32 and key.isalnum() for key in keys)


def test_an_agent_target_shares_its_models_limit_whatever_its_prompt() -> None:
    small = ModelConfig(provider="mistral", name="mistral-small-latest")
    a = AgentTarget(model=small, prompt="drive-thru/orchestrator@staging")
    b = AgentTarget(model=small.model_copy(update={"temperature": 0.7}))
    other = AgentTarget(model=ModelConfig(provider="mistral", name="mistral-large-latest"))
    assert throttle_key(a) == throttle_key(b) != throttle_key(other)
