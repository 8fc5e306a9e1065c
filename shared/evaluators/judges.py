"""LLM-as-judge evaluators (seed 004 tier 2; seed 001 "what's next": tone).

Each judge records ``judge_model``, ``prompt_version`` and ``temperature`` in its metadata.
Without a judge model (no ``MISTRAL_API_KEY``) the value is None with comment
"skipped: no judge model configured" — never an invented number. Common args:
``judge_model`` (name) and ``temperature`` (default 0.0).
Where the judged texts come from: :mod:`shared.evaluators.judge_inputs`.
"""

from __future__ import annotations

import re
from typing import Any

from shared.contracts.evaluation import Evaluation
from shared.evaluators import judge_prompts as prompts
from shared.evaluators.judge_inputs import (
    answer_text,
    citation_sources,
    context_texts,
    query_text,
    render_trajectory,
)
from shared.evaluators.judge_model import SKIPPED, JudgeConfig, ask_judge, judge_config, judge_model_for
from shared.evaluators.payload import as_dict, as_list
from shared.evaluators.registry import register

CITATION_MARKER = re.compile(r"\[(\d+)\]")


def _meta(config: JudgeConfig, version: str, **extra: Any) -> dict[str, Any]:
    return {
        "judge_model": config.model,
        "prompt_version": version,
        "temperature": config.temperature,
        **extra,
    }


def _skipped(name: str, config: JudgeConfig, version: str) -> Evaluation:
    return Evaluation(name=name, value=None, comment=SKIPPED, metadata=_meta(config, version))


@register("faithfulness", reference_free=True)
async def faithfulness(
    *,
    input: Any = None,
    output: Any,
    expected_output: Any = None,
    metadata: Any = None,
    judge_model: str | None = None,
    temperature: float = 0.0,
    **kwargs: Any,
) -> Evaluation:
    """Share of the answer's atomic claims that the retrieved context supports."""
    name, config = "faithfulness", judge_config(judge_model, temperature)
    model = judge_model_for(config)
    if model is None:
        return _skipped(name, config, prompts.FAITHFULNESS_VERSION)
    answer = answer_text(output)
    if not answer.strip():
        return Evaluation(
            name=name,
            value=None,
            comment="no answer in output",
            metadata=_meta(config, prompts.FAITHFULNESS_VERSION),
        )
    claims = (await ask_judge(model, prompts.Claims, prompts.decompose_prompt(answer))).claims
    if not claims:
        return Evaluation(
            name=name,
            value=0.0,
            comment="answer contains no verifiable claims",
            metadata=_meta(config, prompts.FAITHFULNESS_VERSION, claims=[]),
        )
    verdicts = await ask_judge(
        model, prompts.ClaimVerdicts, prompts.verify_claims_prompt(claims, context_texts(output))
    )
    supported = min(len(claims), sum(v.supported for v in verdicts.verifications))
    unsupported = [v.claim for v in verdicts.verifications if not v.supported]
    return Evaluation(
        name=name,
        value=round(supported / len(claims), 6),
        comment=f"{supported}/{len(claims)} claims supported by the context",
        metadata=_meta(config, prompts.FAITHFULNESS_VERSION, claims=claims, unsupported=unsupported),
    )


@register("answer_relevancy", reference_free=True)
async def answer_relevancy(
    *,
    input: Any,
    output: Any,
    expected_output: Any = None,
    metadata: Any = None,
    judge_model: str | None = None,
    temperature: float = 0.0,
    **kwargs: Any,
) -> Evaluation:
    """How well the answer addresses the query (0-1, judged)."""
    name, config = "answer_relevancy", judge_config(judge_model, temperature)
    model = judge_model_for(config)
    if model is None:
        return _skipped(name, config, prompts.ANSWER_RELEVANCY_VERSION)
    verdict = await ask_judge(
        model, prompts.Score, prompts.relevancy_prompt(query_text(input), answer_text(output))
    )
    return Evaluation(
        name=name,
        value=verdict.score,
        comment=verdict.reasoning or None,
        metadata=_meta(config, prompts.ANSWER_RELEVANCY_VERSION),
    )


@register("citation_precision", reference_free=True)
async def citation_precision(
    *,
    input: Any = None,
    output: Any,
    expected_output: Any = None,
    metadata: Any = None,
    judge_model: str | None = None,
    temperature: float = 0.0,
    **kwargs: Any,
) -> Evaluation:
    """Share of the answer's [n] citations whose source supports the cited text."""
    name, config = "citation_precision", judge_config(judge_model, temperature)
    model = judge_model_for(config)
    if model is None:
        return _skipped(name, config, prompts.CITATION_PRECISION_VERSION)
    answer = answer_text(output)
    markers = CITATION_MARKER.findall(answer)
    if not markers:
        return Evaluation(
            name=name,
            value=1.0,
            comment="no citations to verify",
            metadata=_meta(config, prompts.CITATION_PRECISION_VERSION),
        )
    verdicts = (
        await ask_judge(
            model, prompts.CitationVerdicts, prompts.citation_prompt(answer, citation_sources(output))
        )
    ).citations
    if not verdicts:
        return Evaluation(
            name=name,
            value=None,
            comment="judge returned no citation verdicts",
            metadata=_meta(config, prompts.CITATION_PRECISION_VERSION),
        )
    correct = sum(v.supported for v in verdicts)
    return Evaluation(
        name=name,
        value=round(correct / len(verdicts), 6),
        comment=f"{correct}/{len(verdicts)} citations supported",
        metadata=_meta(
            config,
            prompts.CITATION_PRECISION_VERSION,
            unsupported=[v.citation_id for v in verdicts if not v.supported],
        ),
    )


@register("trajectory_judge", reference_free=True)
async def trajectory_judge(
    *,
    input: Any,
    output: Any,
    expected_output: Any = None,
    metadata: Any = None,
    judge_model: str | None = None,
    temperature: float = 0.0,
    **kwargs: Any,
) -> Evaluation:
    """Judged accuracy of the agent's trajectory (0-1); uses the reference trajectory when present."""
    name, config = "trajectory_judge", judge_config(judge_model, temperature)
    model = judge_model_for(config)
    if model is None:
        return _skipped(name, config, prompts.TRAJECTORY_VERSION)
    trajectory = render_trajectory(as_list(as_dict(output, "output").get("trajectory"), "output.trajectory"))
    reference_raw = as_dict(expected_output, "expected_output").get("reference_trajectory")
    reference = render_trajectory(as_list(reference_raw, "reference_trajectory")) if reference_raw else None
    verdict = await ask_judge(
        model, prompts.Score, prompts.trajectory_prompt(query_text(input), trajectory, reference)
    )
    return Evaluation(
        name=name,
        value=verdict.score,
        comment=verdict.reasoning or None,
        metadata=_meta(config, prompts.TRAJECTORY_VERSION, with_reference=reference is not None),
    )


@register("drive_thru_tone", reference_free=True)
async def drive_thru_tone(
    *,
    input: Any,
    output: Any,
    expected_output: Any = None,
    metadata: Any = None,
    judge_model: str | None = None,
    temperature: float = 0.0,
    **kwargs: Any,
) -> Evaluation:
    """Friendliness and conciseness of the agent's reply (mean of both, rescaled to 0-1)."""
    name, config = "drive_thru_tone", judge_config(judge_model, temperature)
    model = judge_model_for(config)
    if model is None:
        return _skipped(name, config, prompts.TONE_VERSION)
    data = as_dict(input, "input")
    response = answer_text(output)
    if not response.strip():
        return Evaluation(
            name=name,
            value=None,
            comment="no response in output",
            metadata=_meta(config, prompts.TONE_VERSION),
        )
    prompt = prompts.tone_prompt(
        str(data.get("customer_utterance") or ""), data.get("previous_response"), response
    )
    verdict = await ask_judge(model, prompts.ToneVerdict, prompt)
    value = ((verdict.friendliness - 1) / 4 + (verdict.conciseness - 1) / 4) / 2
    return Evaluation(
        name=name,
        value=round(value, 6),
        comment=verdict.reasoning or None,
        metadata=_meta(
            config, prompts.TONE_VERSION, friendliness=verdict.friendliness, conciseness=verdict.conciseness
        ),
    )
