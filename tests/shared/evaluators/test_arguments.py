from __future__ import annotations

import pytest

from shared.evaluators import EvaluatorArgumentsError
from tests.evaluator_registry import REGISTRY, get, validate_specs
from yardstick.api.evaluation import EvaluatorSpec

pytestmark = pytest.mark.unit


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ({"ks": "five"}, "evaluator 'retrieval': ks: Input should be a valid list"),
        (
            {"kz": [5]},
            "evaluator 'retrieval': kz: unknown argument (accepted arguments: ks, score_threshold)",
        ),
        ({"ks": [0]}, "evaluator 'retrieval': ks.0: Input should be greater than or equal to 1"),
    ],
)
def test_bad_arguments_are_refused_naming_evaluator_and_field(args: dict[str, object], message: str) -> None:
    with pytest.raises(EvaluatorArgumentsError) as caught:
        validate_specs([EvaluatorSpec(name="retrieval", args=args)])
    assert str(caught.value).startswith(message)


def test_good_arguments_pass() -> None:
    validate_specs([EvaluatorSpec(name="retrieval", args={"ks": [5, 10], "score_threshold": 0.2})])
    validate_specs(
        [EvaluatorSpec(name="faithfulness", args={"judge_model": "mistral-small", "temperature": 0})]
    )
    validate_specs([EvaluatorSpec(name="score_breakdown", args={"keys": ["category"]})], "run")


def test_required_run_arguments() -> None:
    with pytest.raises(EvaluatorArgumentsError, match="avg_score': score: Field required"):
        validate_specs([EvaluatorSpec(name="avg_score")], "run")


def test_every_builtin_has_an_arguments_model() -> None:
    get("retrieval")  # loads the built-ins
    for entry in REGISTRY.entries():
        assert entry.arguments.model_config.get("extra") == "forbid", entry.name
    # the values each call is given are never arguments
    assert "output" not in get("order_correctness").arguments.model_fields
    assert list(get("faithfulness").arguments.model_fields) == [
        "judge_model",
        "judge_provider",
        "temperature",
    ]


def test_a_misspelt_argument_or_choice_names_the_closest_one() -> None:
    with pytest.raises(EvaluatorArgumentsError) as caught:
        validate_specs([EvaluatorSpec(name="retrieval", args={"score_treshold": 0.2})])
    assert str(caught.value) == (
        "evaluator 'retrieval': score_treshold: unknown argument (accepted arguments: ks, score_threshold); "
        "did you mean 'score_threshold'?"
    )
    with pytest.raises(EvaluatorArgumentsError) as caught:
        validate_specs([EvaluatorSpec(name="retrieval", args={"kz": [5]})])
    assert "did you mean" not in str(caught.value), "two letters, one wrong: too far for a guess"
