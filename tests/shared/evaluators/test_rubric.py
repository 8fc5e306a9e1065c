"""``llm_rubric`` with a fake judge model: arguments, prompt, normalisation, metric specs."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from shared.evaluators.arguments import EvaluatorArgumentsError
from shared.evaluators.judge_model import set_judge_factory
from shared.evaluators.rubric import LLM_RUBRIC_VERSION, llm_rubric, rubric_prompt, verdict_model
from tests.evaluator_registry import REGISTRY, get, run_item_evaluators, validate_specs
from tests.shared.evaluators.test_judges import FakeJudge
from yardstick.api.evaluation import EvaluatorSpec

pytestmark = pytest.mark.unit

CRITERIA = "The reply is polite and confirms the order."


@pytest.fixture
def judge(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeJudge]:
    monkeypatch.setenv("MISTRAL_API_KEY", "test-key-not-used")
    monkeypatch.delenv("JUDGE_PROVIDER", raising=False)
    fake = FakeJudge(answers={"RubricVerdict": {"reason": "polite, but no confirmation", "score": 4}})
    set_judge_factory(lambda config: fake)
    yield fake
    set_judge_factory(None)


async def test_the_score_is_normalised_and_the_reason_is_the_comment(judge: FakeJudge) -> None:
    ev = await llm_rubric(
        input={"customer_utterance": "two hash browns"},
        output={"response": "Sure thing, anything else?"},
        criteria=CRITERIA,
    )
    assert ev.name == "llm_rubric" and ev.value == 0.75
    assert ev.comment == "polite, but no confirmation"
    assert ev.metadata["score"] == 4 and ev.metadata["scale"] == [1, 5]
    assert ev.metadata["prompt_version"] == LLM_RUBRIC_VERSION
    assert ev.metadata["usage"] == {"input_tokens": 10, "output_tokens": 5}
    [prompt] = judge.prompts
    assert CRITERIA in prompt and "two hash browns" in prompt and "Sure thing, anything else?" in prompt
    assert "from 1 (does not meet the criteria at all) to 5" in prompt and "Reference" not in prompt


async def test_other_scales_and_a_named_metric(judge: FakeJudge) -> None:
    judge.answers["RubricVerdict"] = {"reason": "mostly", "score": 0.6}
    ev = await llm_rubric(output="an answer", criteria=CRITERIA, scale=(0, 1), metric="politeness")
    assert (ev.name, ev.value) == ("politeness", 0.6)
    judge.answers["RubricVerdict"] = {"reason": "perfect", "score": 10}
    assert (await llm_rubric(output="x", criteria=CRITERIA, scale=(1, 10))).value == 1.0


def test_the_verdict_schema_bounds_the_score_but_validation_leaves_that_to_the_judge() -> None:
    model = verdict_model(1.0, 5.0)
    assert model is verdict_model(1.0, 5.0) and model.__name__ == "RubricVerdict"
    schema = model.model_json_schema()
    assert list(schema["properties"]) == ["reason", "score"] and schema["required"] == ["reason", "score"]
    score = schema["properties"]["score"]
    assert (score["minimum"], score["maximum"], score["description"]) == (1, 5, "The score from 1 to 5")
    assert model.model_validate({"reason": "x", "score": 10}).score == 10  # on_scale says why it is off


async def test_out_of_scale_is_not_measured_with_the_reason(judge: FakeJudge) -> None:
    judge.answers["RubricVerdict"] = {"reason": "excellent!", "score": 10}
    ev = await llm_rubric(output="x", criteria=CRITERIA)
    assert ev.value is None and ev.comment == "not measured: score 10 is outside the scale 1-5"
    assert ev.metadata["raw_reply"] == "{}"


async def test_the_expected_output_is_shown_as_a_reference(judge: FakeJudge) -> None:
    await llm_rubric(output="x", expected_output={"answer": "Paris"}, criteria=CRITERIA)
    assert 'Reference (what a good output contains):\n{"answer": "Paris"}' in judge.prompts[0]


def test_prompt_renders_plain_json_when_there_is_no_answer_or_query() -> None:
    prompt = rubric_prompt(CRITERIA, (1, 5), {"a": 1}, {"order": [1, 2]}, None)
    assert 'Input:\n{"a": 1}' in prompt and 'Output:\n{"order": [1, 2]}' in prompt


def test_arguments_are_checked_at_submission() -> None:
    validate_specs([EvaluatorSpec(name="llm_rubric", args={"criteria": CRITERIA, "scale": [0, 1]})])
    bad: list[dict[str, Any]] = [
        {},
        {"criteria": ""},
        {"criteria": CRITERIA, "scale": [5, 1]},
        {"criteria": CRITERIA, "pass_threshold": 4},
        {"criteria": CRITERIA, "metric": "has space"},
        {"criteria": CRITERIA, "judge_provider": "anthropic"},
    ]
    for args in bad:
        with pytest.raises(EvaluatorArgumentsError):
            validate_specs([EvaluatorSpec(name="llm_rubric", args=args)])


def test_registered_reference_free_with_its_metric_spec() -> None:
    entry = get("llm_rubric")
    assert entry.reference_free and entry.version == LLM_RUBRIC_VERSION
    specs = REGISTRY.metric_specs(
        [
            EvaluatorSpec(
                name="llm_rubric", args={"criteria": CRITERIA, "metric": "tone", "pass_threshold": 0.75}
            )
        ]
    )
    assert specs["tone"].describe() == "higher is better, passes at >= 0.75, regression beyond -0.05"
    assert specs["tone"].evaluator_version == LLM_RUBRIC_VERSION
    default = REGISTRY.metric_specs([EvaluatorSpec(name="llm_rubric", args={"criteria": CRITERIA})])
    assert default["llm_rubric"].passes is None  # the experiment's pass_threshold


async def test_through_the_registry_the_version_is_recorded(judge: FakeJudge) -> None:
    [ev] = await run_item_evaluators(
        [EvaluatorSpec(name="llm_rubric", args={"criteria": CRITERIA})],
        input="hi",
        output="hello",
        expected_output=None,
        metadata={},
    )
    assert ev.value == 0.75 and ev.evaluator_version == LLM_RUBRIC_VERSION and ev.error is None
