"""LLM judges against a fake tool-calling chat model (no network)."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import pytest
from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel, LanguageModelInput
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.runnables import Runnable
from langchain_core.tools import BaseTool
from langchain_mistralai import ChatMistralAI
from pydantic import Field

from shared.contracts.evaluation import EvaluatorSpec
from shared.evaluators.judge_model import SKIPPED, JudgeConfig, mistral_judge_factory, set_judge_factory
from shared.evaluators.judges import (
    answer_relevancy,
    citation_precision,
    drive_thru_tone,
    faithfulness,
    trajectory_judge,
)
from tests.evaluator_registry import get, run_item_evaluators

pytestmark = pytest.mark.unit


class FakeJudge(BaseChatModel):
    """Answers each structured-output request with canned tool-call args for that schema."""

    answers: dict[str, dict[str, Any]]
    prompts: list[str] = Field(default_factory=list)

    @property
    def _llm_type(self) -> str:
        return "fake-judge"

    def bind_tools(
        self,
        tools: Sequence[dict[str, Any] | type | Callable[..., Any] | BaseTool],
        *,
        tool_choice: str | None = None,
        **kwargs: Any,
    ) -> Runnable[LanguageModelInput, AIMessage]:
        return self.bind(tools=list(tools), **kwargs)

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        schema_name = kwargs["tools"][0].__name__
        self.prompts.append(str(messages[-1].content))
        call = {"name": schema_name, "args": self.answers[schema_name], "id": f"call-{len(self.prompts)}"}
        return ChatResult(generations=[ChatGeneration(message=AIMessage(content="", tool_calls=[call]))])


@pytest.fixture
def install() -> Iterator[Callable[[dict[str, dict[str, Any]]], tuple[FakeJudge, list[JudgeConfig]]]]:
    configs: list[JudgeConfig] = []

    def _install(answers: dict[str, dict[str, Any]]) -> tuple[FakeJudge, list[JudgeConfig]]:
        judge = FakeJudge(answers=answers)

        def factory(config: JudgeConfig) -> FakeJudge:
            configs.append(config)
            return judge

        set_judge_factory(factory)
        return judge, configs

    yield _install
    set_judge_factory(None)


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
    names = ["faithfulness", "answer_relevancy", "citation_precision", "trajectory_judge", "drive_thru_tone"]
    evs = await run_item_evaluators(
        [EvaluatorSpec(name=n) for n in names],
        input={"query": "q", "customer_utterance": "q"},
        output=RAG_OUTPUT,
        expected_output=None,
        metadata={},
    )
    assert [e.name for e in evs] == names
    for ev in evs:
        assert ev.value is None and ev.comment == SKIPPED and ev.error is None
        assert set(ev.metadata) == {"judge_model", "prompt_version", "temperature"}


def test_default_factory_builds_mistral_only_with_a_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("MISTRAL_API_KEY", raising=False)
    assert mistral_judge_factory(JudgeConfig(model="mistral-small-latest")) is None
    monkeypatch.setenv("MISTRAL_API_KEY", "test-key-not-used")
    model = mistral_judge_factory(JudgeConfig(model="mistral-small-latest", temperature=0.1))
    assert isinstance(model, ChatMistralAI)
    assert (model.model, model.temperature, model.max_retries) == ("mistral-small-latest", 0.1, 2)


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
    assert ev.metadata["prompt_version"] == "faithfulness-v1"
    assert configs[0] == JudgeConfig(model="mistral-large-latest", temperature=0.2)
    assert "Redis failed at 3am [1]" in judge.prompts[0]
    assert "[Doc 1] Postmortem\nRedis outage at 3am" in judge.prompts[1]


async def test_faithfulness_edge_cases(install: Any) -> None:
    install({"Claims": {"claims": []}})
    assert (await faithfulness(output={"answer": "Hmm."})).value == 0.0
    none = await faithfulness(output={"answer": ""})
    assert none.value is None and none.comment == "no answer in output"


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


async def test_an_out_of_range_judge_answer_is_a_recorded_failure(install: Any) -> None:
    install({"Score": {"score": 1.7, "reasoning": "too generous"}})
    [ev] = await run_item_evaluators(
        [EvaluatorSpec(name="answer_relevancy")],
        input={"query": "q"},
        output={"answer": "a"},
        expected_output=None,
        metadata={},
    )
    assert ev.value is None and ev.error is not None


@pytest.mark.live_llm
@pytest.mark.skipif(not os.environ.get("MISTRAL_API_KEY"), reason="needs MISTRAL_API_KEY")
async def test_live_mistral_answer_relevancy() -> None:
    set_judge_factory(None)
    ev = await answer_relevancy(
        input={"query": "What is the capital of France?"},
        output={"answer": "Paris is the capital of France."},
    )
    assert ev.value is not None and ev.value >= 0.5, ev
