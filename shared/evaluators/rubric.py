"""``llm_rubric``: an LLM judge of the user's own criteria, in words.

Arguments: ``criteria`` (what a good output does, in words), ``scale`` (the judge's scale, default
``[1, 5]``; ``[0, 1]`` and ``[1, 10]`` work too), ``pass_threshold`` (on the normalised score,
0-1; None: the experiment's ``pass_threshold``; 0.75 on ``[1, 5]`` means a 4 or better), ``metric``
(the score's name, default ``llm_rubric``; name two rubrics differently to use both in one
experiment), plus every judge's ``judge_model`` / ``judge_provider`` / ``temperature``.

The judge sees the item's input, the output and, when the item has one, the expected output as a
reference. Its reason is the score's comment; the value is ``(score - low) / (high - low)`` in
[0, 1]; the raw score and the scale are in the metadata. A score outside the scale is not
clipped: the item is "not measured", with the reason and the raw reply (see
:mod:`shared.evaluators.judging`).
"""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping
from typing import Annotated, Any

from pydantic import AfterValidator, BaseModel, Field, JsonValue, create_model

from shared.evaluators.judge_inputs import answer_text, query_text
from shared.evaluators.judging import Judging, run_judge
from shared.evaluators.registry import register
from shared.llm import ProviderChoice
from yardstick.api.evaluation import Evaluation
from yardstick.api.metric_spec import MetricSpec

LLM_RUBRIC_VERSION = "llm-rubric-v2"
"""v2: the verdict's schema bounds ``score`` to the scale (and says so in its description)."""
DEFAULT_METRIC = "llm_rubric"
RENDERED_CHARS = 6000
"""Input, output and reference are each cut to this many characters in the prompt."""


class RubricVerdict(BaseModel):
    reason: str = Field(description="Why the output earns this score, referring to the criteria")
    score: float = Field(description="The score on the given scale")


@functools.cache
def verdict_model(low: float, high: float) -> type[RubricVerdict]:
    """:class:`RubricVerdict` whose JSON schema (sent to the model, and made a grammar by servers that
    do) bounds ``score`` to ``[low, high]``. Validation does not: a score off the scale is still
    "not measured" with that reason (:meth:`~shared.evaluators.judging.Judging.on_scale`)."""
    bounds: dict[str, JsonValue] = {"minimum": low, "maximum": high}
    score = Field(description=f"The score from {low:g} to {high:g}", json_schema_extra=bounds)
    return create_model("RubricVerdict", __base__=RubricVerdict, score=(float, score))


def _ordered(scale: tuple[float, float]) -> tuple[float, float]:
    low, high = scale
    if not low < high:
        raise ValueError(f"scale [{low:g}, {high:g}] is empty: give [lowest, highest], e.g. [1, 5]")
    return scale


Scale = Annotated[tuple[float, float], AfterValidator(_ordered)]


def _render(value: Any, text: str) -> str:
    """``text`` (the answer or query found in ``value``) when there is one, else ``value`` as JSON."""
    if not text.strip():
        text = value if isinstance(value, str) else json.dumps(value, sort_keys=True, default=str)
    return text if len(text) <= RENDERED_CHARS else text[:RENDERED_CHARS] + " …(cut)"


def _safe(read: Any, value: Any) -> str:
    try:
        return str(read(value))
    except (TypeError, ValueError):
        return ""


def rubric_prompt(
    criteria: str, scale: tuple[float, float], input: Any, output: Any, expected_output: Any
) -> str:
    low, high = scale
    reference = ""
    if expected_output not in (None, {}, [], ""):
        reference = f"\n\nReference (what a good output contains):\n{_render(expected_output, '')}"
    return (
        "You are grading the output of an AI system against the criteria below.\n\n"
        f"Criteria:\n{criteria}\n\n"
        f"Input:\n{_render(input, _safe(query_text, input))}\n\n"
        f"Output:\n{_render(output, _safe(answer_text, output))}{reference}\n\n"
        f"Score the output from {low:g} (does not meet the criteria at all) to {high:g} "
        "(meets them fully). Give the reason first, then the score."
    )


def _metrics(args: Mapping[str, Any]) -> dict[str, MetricSpec]:
    threshold = args.get("pass_threshold")
    return {str(args.get("metric") or DEFAULT_METRIC): MetricSpec.higher(threshold)}


@register("llm_rubric", version=LLM_RUBRIC_VERSION, reference_free=True, metrics=_metrics)
async def llm_rubric(
    *,
    input: Any = None,
    output: Any,
    expected_output: Any = None,
    metadata: Any = None,
    criteria: Annotated[str, Field(min_length=1, max_length=4000)],
    scale: Scale = (1.0, 5.0),
    pass_threshold: Annotated[float, Field(ge=0, le=1)] | None = None,
    metric: Annotated[str, Field(pattern=r"^[A-Za-z][A-Za-z0-9_.@-]{0,63}$")] = DEFAULT_METRIC,
    judge_model: str | None = None,
    judge_provider: ProviderChoice | None = None,
    temperature: Annotated[float, Field(ge=0, le=2)] = 0.0,
    **kwargs: Any,
) -> Evaluation:
    """The user's criteria, judged by an LLM on a scale (normalised to 0-1); the reason is the comment."""
    low, high = scale

    async def body(j: Judging) -> Evaluation:
        prompt = rubric_prompt(criteria, scale, input, output, expected_output)
        verdict = await j.ask(verdict_model(low, high), prompt)
        score = j.on_scale(verdict.score, low, high)
        return j.result(
            round((score - low) / (high - low), 6), verdict.reason or None, score=score, scale=[low, high]
        )

    return await run_judge(
        metric,
        LLM_RUBRIC_VERSION,
        body,
        judge_model=judge_model,
        judge_provider=judge_provider,
        temperature=temperature,
        args={"criteria": criteria, "scale": [low, high], "metric": metric},
        content={"input": input, "output": output, "expected_output": expected_output},
    )
