"""LLM-as-judge evaluators (RAG answer quality; the drive-thru reply's tone).

Each judge records ``judge_model``, ``prompt_version`` and ``temperature`` in its metadata.
Without a judge model (no ``MISTRAL_API_KEY``) the value is None with comment
"skipped: no judge model configured" — never an invented number. Common args:
``judge_model`` (name) and ``temperature`` (default 0.0).
Where the judged texts come from: :mod:`shared.evaluators.judge_inputs`.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from shared.contracts.evaluation import Evaluation
from shared.contracts.metric_spec import MetricSpec
from shared.evaluators import judge_prompts as prompts
from shared.evaluators.judge_inputs import (
    answer_text,
    citation_sources,
    context_texts,
    query_text,
    render_trajectory,
)
from shared.evaluators.judge_model import (
    SKIPPED,
    JudgeConfig,
    StructuredChatModel,
    ask_judge,
    judge_config,
    judge_model_for,
)
from shared.evaluators.payload import as_dict, as_list
from shared.evaluators.registry import EvaluatorFn, register

CITATION_MARKER = re.compile(r"\[(\d+)\]")


@dataclass(frozen=True)
class Judging:
    """One judge call: its name, prompt version, configuration and the model to ask."""

    name: str
    version: str
    config: JudgeConfig
    model: StructuredChatModel

    def result(self, value: float | None, comment: str | None, **details: Any) -> Evaluation:
        """The judge's evaluation, with the judge model, prompt version and temperature recorded."""
        return Evaluation(
            name=self.name, value=value, comment=comment, metadata=_meta(self.config, self.version, **details)
        )


JudgeBody = Callable[..., Awaitable[Evaluation]]


def _meta(config: JudgeConfig, version: str, **extra: Any) -> dict[str, Any]:
    return {
        "judge_model": config.model,
        "prompt_version": version,
        "temperature": config.temperature,
        **extra,
    }


def judge(name: str, version: str, regression: float = 0.05) -> Callable[[JudgeBody], EvaluatorFn]:
    """Register ``body(judging, *, input, output, expected_output)`` as the reference-free item
    evaluator ``name`` (higher is better in [0, 1]; its version is the prompt's): it resolves the
    judge model, and without one records the skip."""

    def wrap(body: JudgeBody) -> EvaluatorFn:
        @functools.wraps(body)
        async def evaluate(
            *,
            input: Any = None,
            output: Any,
            expected_output: Any = None,
            metadata: Any = None,
            judge_model: str | None = None,
            temperature: float = 0.0,
            **kwargs: Any,
        ) -> Evaluation:
            config = judge_config(judge_model, temperature)
            model = judge_model_for(config)
            if model is None:
                return Evaluation(name=name, value=None, comment=SKIPPED, metadata=_meta(config, version))
            judging = Judging(name, version, config, model)
            return await body(judging, input=input, output=output, expected_output=expected_output)

        metrics = {name: MetricSpec.higher(regression=regression)}
        return register(name, version=version, reference_free=True, metrics=metrics)(evaluate)

    return wrap


@judge("faithfulness", prompts.FAITHFULNESS_VERSION, regression=0.03)
async def faithfulness(j: Judging, *, input: Any, output: Any, expected_output: Any) -> Evaluation:
    """Share of the answer's atomic claims that the retrieved context supports."""
    answer = answer_text(output)
    if not answer.strip():
        return j.result(None, "no answer in output")
    claims = (await ask_judge(j.model, prompts.Claims, prompts.decompose_prompt(answer))).claims
    if not claims:
        return j.result(0.0, "answer contains no verifiable claims", claims=[])
    verdicts = await ask_judge(
        j.model, prompts.ClaimVerdicts, prompts.verify_claims_prompt(claims, context_texts(output))
    )
    supported = min(len(claims), sum(v.supported for v in verdicts.verifications))
    unsupported = [v.claim for v in verdicts.verifications if not v.supported]
    return j.result(
        round(supported / len(claims), 6),
        f"{supported}/{len(claims)} claims supported by the context",
        claims=claims,
        unsupported=unsupported,
    )


@judge("answer_relevancy", prompts.ANSWER_RELEVANCY_VERSION)
async def answer_relevancy(j: Judging, *, input: Any, output: Any, expected_output: Any) -> Evaluation:
    """How well the answer addresses the query (0-1, judged)."""
    verdict = await ask_judge(
        j.model, prompts.Score, prompts.relevancy_prompt(query_text(input), answer_text(output))
    )
    return j.result(verdict.score, verdict.reasoning or None)


@judge("citation_precision", prompts.CITATION_PRECISION_VERSION, regression=0.03)
async def citation_precision(j: Judging, *, input: Any, output: Any, expected_output: Any) -> Evaluation:
    """Share of the answer's [n] citations whose source supports the cited text."""
    answer = answer_text(output)
    markers = CITATION_MARKER.findall(answer)
    if not markers:
        return j.result(1.0, "no citations to verify")
    verdicts = (
        await ask_judge(
            j.model, prompts.CitationVerdicts, prompts.citation_prompt(answer, citation_sources(output))
        )
    ).citations
    if not verdicts:
        return j.result(None, "judge returned no citation verdicts")
    correct = sum(v.supported for v in verdicts)
    return j.result(
        round(correct / len(verdicts), 6),
        f"{correct}/{len(verdicts)} citations supported",
        unsupported=[v.citation_id for v in verdicts if not v.supported],
    )


@judge("trajectory_judge", prompts.TRAJECTORY_VERSION)
async def trajectory_judge(j: Judging, *, input: Any, output: Any, expected_output: Any) -> Evaluation:
    """Judged accuracy of the agent's trajectory (0-1); uses the reference trajectory when present."""
    trajectory = render_trajectory(as_list(as_dict(output, "output").get("trajectory"), "output.trajectory"))
    reference_raw = as_dict(expected_output, "expected_output").get("reference_trajectory")
    reference = render_trajectory(as_list(reference_raw, "reference_trajectory")) if reference_raw else None
    verdict = await ask_judge(
        j.model, prompts.Score, prompts.trajectory_prompt(query_text(input), trajectory, reference)
    )
    return j.result(verdict.score, verdict.reasoning or None, with_reference=reference is not None)


@judge("drive_thru_tone", prompts.TONE_VERSION)
async def drive_thru_tone(j: Judging, *, input: Any, output: Any, expected_output: Any) -> Evaluation:
    """Friendliness and conciseness of the agent's reply (mean of both, rescaled to 0-1)."""
    data = as_dict(input, "input")
    response = answer_text(output)
    if not response.strip():
        return j.result(None, "no response in output")
    prompt = prompts.tone_prompt(
        str(data.get("customer_utterance") or ""), data.get("previous_response"), response
    )
    verdict = await ask_judge(j.model, prompts.ToneVerdict, prompt)
    value = ((verdict.friendliness - 1) / 4 + (verdict.conciseness - 1) / 4) / 2
    return j.result(
        round(value, 6),
        verdict.reasoning or None,
        friendliness=verdict.friendliness,
        conciseness=verdict.conciseness,
    )
