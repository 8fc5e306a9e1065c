from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import typer
from typer.testing import CliRunner

from services.cli import generate_retrieval
from services.search_proxy.generation.schemas import CriticScore, QueryBatch
from shared.datasets.retrieval_golden import load_golden
from shared.llm import LlmConfig
from tests.services.search_proxy.generation.fake_models import FakeChatModel

pytestmark = pytest.mark.unit

app = typer.Typer()
app.command()(generate_retrieval.generate_retrieval_command)
runner = CliRunner()

QUERY: dict[str, Any] = {
    "query": "what caused the redis outage?",
    "query_type": "technical",
    "expected_event_ids": ["pr:redis-outage-postmortem"],
    "complexity": "simple",
    "reasoning": "post-mortem",
}


def fake_models(_gen: LlmConfig, _critic: LlmConfig) -> tuple[FakeChatModel, FakeChatModel]:
    gen = FakeChatModel({QueryBatch: lambda _p: {"queries": [QUERY]}})
    score = {
        "query_naturalness": 5,
        "relevance_correctness": 5,
        "answer_feasibility": 5,
        "overall_score": 5,
        "reasoning": "good",
    }
    critic = FakeChatModel({CriticScore: lambda _p: score})
    return gen, critic


@pytest.fixture(autouse=True)
def no_openai(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("OPENAI_BASE_URL", "OPENAI_API_KEY", "OPENAI_MODEL"):
        monkeypatch.delenv(name, raising=False)


def test_without_a_model_it_exits_2_with_a_clear_message(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.delenv("MISTRAL_API_KEY", raising=False)
    result = runner.invoke(app, ["--out", str(tmp_path)])
    assert result.exit_code == 2
    assert "MISTRAL_API_KEY" in result.output and "--provider openai --model NAME" in result.output
    assert list(tmp_path.iterdir()) == []
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:8000/v1")
    unnamed = runner.invoke(app, ["--out", str(tmp_path), "--provider", "openai"])
    assert unnamed.exit_code == 2 and "needs a model name" in unnamed.output
    wrong = runner.invoke(app, ["--out", str(tmp_path), "--provider", "anthropic"])
    assert wrong.exit_code == 2 and "choose auto, mistral or openai" in wrong.output


def test_models_per_provider(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MISTRAL_API_KEY", "test-key-not-used")
    gen, critic = generate_retrieval.generation_configs("auto", None, None)
    assert (gen.identity, gen.temperature, critic.identity, critic.temperature) == (
        "mistral:mistral-small-latest",
        0.8,
        "mistral:mistral-large-latest",
        0.2,
    )
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:8000/v1")
    gen, critic = generate_retrieval.generation_configs("openai", "qwen", None)
    assert (gen.identity, critic.identity, gen.timeout_s) == ("openai:qwen", "openai:qwen", 60)


def test_writes_the_next_golden_version(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("MISTRAL_API_KEY", "test-key-not-used")
    monkeypatch.setattr(generate_retrieval, "build_models", fake_models)
    (tmp_path / "golden-v1.json").write_text("{}")
    result = runner.invoke(app, ["--out", str(tmp_path), "--count", "1"])
    assert result.exit_code == 0, result.output
    written = tmp_path / "golden-v2.json"
    golden = load_golden(written)
    assert golden.version == "2.0.0"
    assert [c.query for c in golden.cases] == ["what caused the redis outage?"]
    assert "wrote 1 cases" in result.output


def test_refuses_to_overwrite_an_existing_file(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("MISTRAL_API_KEY", "test-key-not-used")
    monkeypatch.setattr(generate_retrieval, "build_models", fake_models)
    target = tmp_path / "golden-v7.json"
    target.write_text("{}")
    result = runner.invoke(app, ["--out", str(target), "--count", "1"])
    assert result.exit_code == 1 and "--overwrite" in result.output
    result = runner.invoke(app, ["--out", str(target), "--count", "1", "--overwrite"])
    assert result.exit_code == 0, result.output
    assert load_golden(target).version == "7.0.0"
