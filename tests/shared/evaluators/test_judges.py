"""LLM judges against a fake judge model (no network); the bad-day server: test_judges_bad_day.py."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, TypeVar

import pytest
from pydantic import BaseModel

from shared.evaluators.judge_model import (
    SKIPPED,
    default_judge_factory,
    judge_available,
    judge_config,
    set_judge_factory,
)
from shared.evaluators.judges import (
    answer_relevancy,
    citation_precision,
    drive_thru_tone,
    faithfulness,
    trajectory_judge,
)
from shared.llm import LlmCallStats, LlmConfig, StructuredLlm, StructuredReply
from tests.evaluator_registry import get, run_item_evaluators
from yardstick.api.evaluation import EvaluatorSpec

pytestmark = pytest.mark.unit

T = TypeVar("T", bound=BaseModel)


@dataclass
class FakeJudge:
    """Answers each request with the canned answer for its schema (by class name)."""

    answers: dict[str, dict[str, Any]]
    prompts: list[str] = field(default_factory=list)

    async def ask(self, schema: type[T], prompt: str) -> StructuredReply[T]:
        self.prompts.append(prompt)
        stats = LlmCallStats(requests=1, input_tokens=10, output_tokens=5, response_format="json_schema")
        return StructuredReply(schema.model_validate(self.answers[schema.__name__]), raw="{}", stats=stats)


@pytest.fixture
def install() -> Iterator[Callable[[dict[str, dict[str, Any]]], tuple[FakeJudge, list[LlmConfig]]]]:
    configs: list[LlmConfig] = []

    def _install(answers: dict[str, dict[str, Any]]) -> tuple[FakeJudge, list[LlmConfig]]:
        judge = FakeJudge(answers=answers)

        def factory(config: LlmConfig) -> FakeJudge:
            configs.append(config)
            return judge

        set_judge_factory(factory)
        return judge, configs

    yield _install
    set_judge_factory(None)


@pytest.fixture(autouse=True)
def judge_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """Judges resolve to Mistral (a key that is never used: the fake answers)."""
    for name in (
        "OPENAI_API_KEY",
        "OPENAI_BASE_URL",
        "JUDGE_PROVIDER",
        "JUDGE_MODEL",
        "YARDSTICK_JUDGE_MODEL",
    ):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("MISTRAL_API_KEY", "test-key-not-used")


RAG_OUTPUT = {
    "answer": "Redis failed at 3am [1]. It was fixed by a restart [2].",
    "results": [
        {"id": "d1", "score": 0.9, "rank": 1, "title": "Postmortem", "snippet": "Redis outage at 3am"},
        {"id": "d2", "score": 0.5, "rank": 2, "title": "Runbook", "snippet": "Restart the primary"},
    ],
}


def test_all_judges_are_registered_reference_free() -> None:
    for name in (
        "faithfulness",
        "answer_relevancy",
        "citation_precision",
        "trajectory_judge",
        "drive_thru_tone",
    ):
        assert get(name).reference_free


async def test_without_a_judge_model_every_judge_skips(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("MISTRAL_API_KEY", raising=False)
    set_judge_factory(None)
    names = [
        "faithfulness",
        "answer_relevancy",
        "citation_precision",
        "trajectory_judge",
        "drive_thru_tone",
        "llm_rubric",
    ]
    evs = await run_item_evaluators(
        [EvaluatorSpec(name=n, args={"criteria": "polite"} if n == "llm_rubric" else {}) for n in names],
        input={"query": "q", "customer_utterance": "q"},
        output=RAG_OUTPUT,
        expected_output=None,
        metadata={},
    )
    assert [e.name for e in evs] == names
    for ev in evs:
        assert ev.value is None and ev.comment == SKIPPED and ev.error is None
        assert set(ev.metadata) == {"judge_provider", "judge_model", "prompt_version", "temperature"}
        assert (
            ev.metadata["judge_provider"] == "offline"
            and ev.evaluator_version == ev.metadata["prompt_version"]
        )


def test_default_factory_asks_the_configured_provider(monkeypatch: pytest.MonkeyPatch) -> None:
    model = default_judge_factory(judge_config(None, 0.1))
    assert isinstance(model, StructuredLlm)
    assert model.config.identity == "mistral:mistral-small-latest" and model.config.temperature == 0.1
    monkeypatch.setenv("JUDGE_MODEL", "mistral-large-latest")
    assert judge_config(None, 0.0).model == "mistral-large-latest"
    assert judge_config("mistral-medium", 0.0).model == "mistral-medium"  # the argument wins
    monkeypatch.delenv("MISTRAL_API_KEY")
    assert default_judge_factory(judge_config(None, 0.0)) is None  # auto: offline


async def test_an_invalid_judge_setting_is_not_measured_saying_which(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("JUDGE_PROVIDER", "anthropic")
    ev = await answer_relevancy(input={"query": "q"}, output={"answer": "a"})
    assert ev.value is None and ev.comment is not None
    assert ev.comment.startswith("not measured: invalid LLM settings: JUDGE_PROVIDER: Input should be")
    assert not judge_available()


async def test_a_provider_named_but_not_configured_is_not_measured_saying_what_to_set(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("MISTRAL_API_KEY")
    ev = await answer_relevancy(input={"query": "q"}, output={"answer": "a"}, judge_provider="openai")
    assert ev.value is None and ev.comment is not None and "OPENAI_BASE_URL" in ev.comment


async def test_faithfulness_decomposes_and_verifies(install: Any) -> None:
    judge, configs = install(
        {
            "Claims": {"claims": ["Redis failed at 3am", "It was fixed by a restart", "It was DNS"]},
            "ClaimVerdicts": {
                "verifications": [
                    {"claim": "Redis failed at 3am", "supported": True, "reasoning": "doc 1"},
                    {"claim": "It was fixed by a restart", "supported": True, "reasoning": "doc 2"},
                    {"claim": "It was DNS", "supported": False, "reasoning": "nowhere"},
                ]
            },
        }
    )
    ev = await faithfulness(
        input={"query": "why"}, output=RAG_OUTPUT, judge_model="mistral-large-latest", temperature=0.2
    )
    assert ev.value == pytest.approx(2 / 3, abs=1e-6)
    assert ev.metadata["unsupported"] == ["It was DNS"]
    assert ev.metadata["judge_model"] == "mistral-large-latest" and ev.metadata["temperature"] == 0.2
    assert ev.metadata["prompt_version"] == "faithfulness-v2" and ev.metadata["judge_provider"] == "mistral"
    assert ev.metadata["usage"] == {"input_tokens": 20, "output_tokens": 10}  # two calls
    assert (ev.metadata["llm_requests"], ev.metadata["retries"]) == (2, 0)
    assert (configs[0].model, configs[0].temperature) == ("mistral-large-latest", 0.2)
    assert "Redis failed at 3am [1]" in judge.prompts[0]
    assert "[Doc 1] Postmortem\nRedis outage at 3am" in judge.prompts[1]


async def test_faithfulness_edge_cases(install: Any) -> None:
    install({"Claims": {"claims": []}})
    assert (await faithfulness(output={"answer": "Hmm."})).value == 0.0
    none = await faithfulness(output={"answer": ""})
    assert none.value is None and none.comment == "no answer in output"


async def test_faithfulness_with_verdicts_missing_is_not_measured(install: Any) -> None:
    install(
        {
            "Claims": {"claims": ["a", "b", "c"]},
            "ClaimVerdicts": {"verifications": [{"claim": "a", "supported": True}]},
        }
    )
    ev = await faithfulness(output={"answer": "A. B. C."})
    assert ev.value is None and ev.comment == "not measured: the judge returned 1 verdicts for 3 claims"


async def test_answer_relevancy(install: Any) -> None:
    judge, _ = install({"Score": {"score": 0.8, "reasoning": "mostly answers"}})
    ev = await answer_relevancy(input={"query": "why did redis fail"}, output=RAG_OUTPUT)
    assert (ev.value, ev.comment) == (0.8, "mostly answers")
    assert "Query: why did redis fail" in judge.prompts[0]


async def test_citation_precision(install: Any) -> None:
    judge, _ = install(
        {
            "CitationVerdicts": {
                "citations": [
                    {"text": "Redis failed at 3am", "citation_id": "[1]", "supported": True},
                    {"text": "fixed by a restart", "citation_id": "[2]", "supported": False},
                ]
            }
        }
    )
    ev = await citation_precision(output=RAG_OUTPUT)
    assert ev.value == 0.5 and ev.metadata["unsupported"] == ["[2]"]
    no_markers = await citation_precision(output={"answer": "No citations here."})
    assert no_markers.value == 1.0 and no_markers.comment == "no citations to verify"
    assert len(judge.prompts) == 1  # no judge call without markers


async def test_trajectory_judge_includes_the_reference_when_present(install: Any) -> None:
    judge, _ = install({"Score": {"score": 0.5, "reasoning": "extra lookup"}})
    output = {
        "trajectory": [
            {"type": "human", "content": "hash browns"},
            {
                "type": "ai",
                "tool_calls": [{"id": "1", "name": "lookup_menu_item", "args": {"item_name": "hash browns"}}],
            },
        ]
    }
    reference = {
        "reference_trajectory": [{"type": "ai", "tool_calls": [{"name": "add_item_to_order", "args": {}}]}]
    }
    ev = await trajectory_judge(
        input={"customer_utterance": "hash browns"}, output=output, expected_output=reference
    )
    assert ev.value == 0.5 and ev.metadata["with_reference"] is True
    assert 'ai calls lookup_menu_item({"item_name": "hash browns"})' in judge.prompts[0]
    assert "reference trajectory" in judge.prompts[0]
    ev = await trajectory_judge(input={"customer_utterance": "hash browns"}, output=output)
    assert ev.metadata["with_reference"] is False


async def test_drive_thru_tone_rescales_the_two_ratings(install: Any) -> None:
    judge, _ = install({"ToneVerdict": {"friendliness": 5, "conciseness": 3, "reasoning": "warm but long"}})
    ev = await drive_thru_tone(
        input={"customer_utterance": "yes", "previous_response": "Is that all?"},
        output={"response": "Great, thanks!"},
    )
    assert ev.value == pytest.approx(0.75)
    assert (ev.metadata["friendliness"], ev.metadata["conciseness"]) == (5, 3)
    assert "Agent's previous reply: Is that all?" in judge.prompts[0]


async def test_an_out_of_scale_judge_answer_is_not_measured_never_clipped(install: Any) -> None:
    install({"Score": {"score": 1.7, "reasoning": "too generous"}})
    [ev] = await run_item_evaluators(
        [EvaluatorSpec(name="answer_relevancy")],
        input={"query": "q"},
        output={"answer": "a"},
        expected_output=None,
        metadata={},
    )
    assert ev.value is None and ev.error is None
    assert ev.comment == "not measured: score 1.7 is outside the scale 0-1"
    assert ev.metadata["reason"] == "score 1.7 is outside the scale 0-1" and ev.metadata["raw_reply"] == "{}"


async def test_tone_ratings_outside_1_to_5_are_not_measured(install: Any) -> None:
    install({"ToneVerdict": {"friendliness": 5, "conciseness": 0, "reasoning": "?"}})
    ev = await drive_thru_tone(input={"customer_utterance": "yes"}, output={"response": "Great!"})
    assert ev.value is None and ev.comment == "not measured: conciseness 0 is outside the scale 1-5"


LIVE_KEY = os.environ.get("MISTRAL_API_KEY")


@pytest.mark.live_llm
@pytest.mark.skipif(not LIVE_KEY, reason="needs MISTRAL_API_KEY")
async def test_live_mistral_answer_relevancy(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MISTRAL_API_KEY", LIVE_KEY or "")
    set_judge_factory(None)
    ev = await answer_relevancy(
        input={"query": "What is the capital of France?"},
        output={"answer": "Paris is the capital of France."},
    )
    assert ev.value is not None and ev.value >= 0.5, ev
