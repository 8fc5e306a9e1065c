"""LLM-as-judge evaluators (RAG answer quality; the agent's trajectory; the drive-thru reply's tone).

What every judge records and how it fails: :mod:`shared.evaluators.judging`. Where the judged
texts come from: :mod:`shared.evaluators.judge_inputs`. The user's own criteria:
:mod:`shared.evaluators.rubric` (``llm_rubric``).
"""

from __future__ import annotations

import re
from typing import Any

from shared.evaluators import judge_prompts as prompts
from shared.evaluators.judge_inputs import (
    answer_text,
    citation_sources,
    context_texts,
    query_text,
    render_trajectory,
)
from shared.evaluators.judging import Judging, NotMeasured, judge
from shared.evaluators.payload import as_dict, as_list
from yardstick.api.evaluation import Evaluation

CITATION_MARKER = re.compile(r"\[(\d+)\]")


@judge("faithfulness", prompts.FAITHFULNESS_VERSION, regression=0.03)
async def faithfulness(j: Judging, *, input: Any, output: Any, expected_output: Any) -> Evaluation:
    """Share of the answer's atomic claims that the retrieved context supports."""
    answer = answer_text(output)
    if not answer.strip():
        return j.result(None, "no answer in output")
    claims = (await j.ask(prompts.Claims, prompts.decompose_prompt(answer))).claims
    if not claims:
        return j.result(0.0, "answer contains no verifiable claims", claims=[])
    verdicts = await j.ask(prompts.ClaimVerdicts, prompts.verify_claims_prompt(claims, context_texts(output)))
    if len(verdicts.verifications) < len(claims):
        raise NotMeasured(
            f"the judge returned {len(verdicts.verifications)} verdicts for {len(claims)} claims", j.last_raw
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
    verdict = await j.ask(prompts.Score, prompts.relevancy_prompt(query_text(input), answer_text(output)))
    return j.result(j.on_scale(verdict.score, 0, 1), verdict.reasoning or None)


@judge("citation_precision", prompts.CITATION_PRECISION_VERSION, regression=0.03)
async def citation_precision(j: Judging, *, input: Any, output: Any, expected_output: Any) -> Evaluation:
    """Share of the answer's [n] citations whose source supports the cited text."""
    answer = answer_text(output)
    markers = CITATION_MARKER.findall(answer)
    if not markers:
        return j.result(1.0, "no citations to verify")
    verdicts = (
        await j.ask(prompts.CitationVerdicts, prompts.citation_prompt(answer, citation_sources(output)))
    ).citations
    if not verdicts:
        raise NotMeasured("the judge returned no citation verdicts", j.last_raw)
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
    verdict = await j.ask(prompts.Score, prompts.trajectory_prompt(query_text(input), trajectory, reference))
    score = j.on_scale(verdict.score, 0, 1)
    return j.result(score, verdict.reasoning or None, with_reference=reference is not None)


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
    verdict = await j.ask(prompts.ToneVerdict, prompt)
    friendliness = j.on_scale(verdict.friendliness, 1, 5, "friendliness")
    conciseness = j.on_scale(verdict.conciseness, 1, 5, "conciseness")
    value = ((friendliness - 1) / 4 + (conciseness - 1) / 4) / 2
    return j.result(
        round(value, 6),
        verdict.reasoning or None,
        friendliness=verdict.friendliness,
        conciseness=verdict.conciseness,
    )
