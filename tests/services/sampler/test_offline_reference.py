from __future__ import annotations

import pytest

from services.sampler.offline_reference import target_model_identity
from yardstick.api.agent_messages import ModelConfig
from yardstick.api.eval_messages import AgentTarget, SearchTarget
from yardstick.api.experiment_config import ExperimentConfig

pytestmark = pytest.mark.unit


def identity(target: AgentTarget | SearchTarget) -> str | None:
    return target_model_identity(ExperimentConfig(target=target, evaluators=[]))


def test_the_identity_matches_what_the_agent_reports() -> None:
    assert identity(AgentTarget()) == "offline:ask"
    assert identity(AgentTarget(model=ModelConfig(provider="mistral", name="mistral-small-latest"))) == (
        "mistral:mistral-small-latest"
    )
    assert (
        identity(AgentTarget(model=ModelConfig(provider="openai", name="qwen2.5:7b"))) == "openai:qwen2.5:7b"
    )
    assert (
        identity(AgentTarget(model=ModelConfig(provider="openai"))) is None
    )  # the agent's default: unknown here
    assert identity(SearchTarget()) is None
