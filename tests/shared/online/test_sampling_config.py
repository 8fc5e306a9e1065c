from __future__ import annotations

import pytest
from pydantic import ValidationError

from shared.evaluators.judge_model import set_judge_factory
from shared.llm import LlmConfig
from shared.online.application_sampling import ApplicationSampling, TraceFilters
from shared.online.sampling_config import (
    DEFAULT_EVALUATORS,
    DRIVE_THRU_APPLICATION,
    SamplingFilters,
    SamplingSettings,
    generic_evaluators,
)
from yardstick.api.evaluation import EvaluatorSpec

pytestmark = pytest.mark.unit


def test_config_validation() -> None:
    with pytest.raises(ValueError, match="rate"):
        SamplingSettings(rate=1.5)
    with pytest.raises(ValueError, match="unknown item-level evaluator 'nope'"):
        SamplingSettings.model_validate({"evaluators": [{"name": "nope"}]})
    with pytest.raises(ValueError, match="needs an expected output"):
        SamplingSettings.model_validate({"evaluators": [{"name": "order_correctness"}]})


def _default_names(judge: object | None) -> list[str]:
    def factory(config: LlmConfig) -> object | None:
        return judge  # stands for a chat model; default_evaluators only asks whether there is one

    set_judge_factory(factory)  # type: ignore[arg-type]
    try:
        return [e.name for e in SamplingSettings().evaluators]
    finally:
        set_judge_factory(None)


def test_default_evaluators_add_the_tone_judge_only_when_a_judge_model_is_configured() -> None:
    assert _default_names(None) == list(DEFAULT_EVALUATORS)
    assert _default_names(object()) == [*DEFAULT_EVALUATORS, "drive_thru_tone"]


def test_an_application_overrides_what_it_sets_and_keeps_the_projects_rest() -> None:
    tools = [EvaluatorSpec(name="tool_called", args={"tool": "lookup"})]
    config = SamplingSettings(
        rate=0.1,
        cap_per_minute=50,
        filters=SamplingFilters(model="gpt-a", prompt_version="v1"),
        applications={"bot": ApplicationSampling(rate=1.0, evaluators=tools)},
    )
    bot = config.for_application("bot")
    assert (bot.rate, bot.cap_per_minute, bot.evaluators) == (1.0, 50, tools)
    assert bot.filters == TraceFilters(model="gpt-a")  # the project's model filter; turn filters do not apply
    other = config.for_application("other")
    assert (other.rate, other.evaluators) == (0.1, generic_evaluators())  # not the drive-thru agent's
    assert config.for_application(DRIVE_THRU_APPLICATION).evaluators == config.evaluators
    with pytest.raises(ValidationError, match="needs an expected output"):
        SamplingSettings(applications={"bot": {"evaluators": [{"name": "exact_match"}]}})  # type: ignore[dict-item]


def test_the_default_set_is_the_drive_thru_agents_and_other_applications_get_generic_evaluators() -> None:
    defaults = SamplingSettings()
    assert [e.name for e in defaults.for_application("drive-thru").evaluators] == list(DEFAULT_EVALUATORS)
    generic = defaults.for_application("support-bot").evaluators
    assert generic == [EvaluatorSpec(name="latency_budget", args={"max_ms": 10_000.0})]
    assert not {e.name for e in generic} & set(DEFAULT_EVALUATORS)
    # with a judge model, the generic set adds a judge of whether the reply answers the question
    set_judge_factory(lambda config: object())  # type: ignore[arg-type,return-value]
    try:
        names = [e.name for e in SamplingSettings().for_application("support-bot").evaluators]
        assert names == ["latency_budget", "answer_relevancy"]
    finally:
        set_judge_factory(None)
    # a project set of the user's own applies to every application without one
    chosen = [EvaluatorSpec(name="tool_called", args={"tool": "search"})]
    assert SamplingSettings(evaluators=chosen).for_application("support-bot").evaluators == chosen
