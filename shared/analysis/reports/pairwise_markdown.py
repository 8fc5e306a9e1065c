"""The pairwise judge's result (``llm_pairwise``) of a comparison as markdown."""

from __future__ import annotations

from yardstick.api.pairwise import PairwiseResult, Rate


def _rate(rate: Rate) -> str:
    if rate.rate is None:
        return f"{rate.count} (-)"
    return f"{rate.count} ({rate.rate:.1%}, 95% CI [{rate.ci_low:.1%}, {rate.ci_high:.1%}])"


def pairwise_lines(result: PairwiseResult | None) -> list[str]:
    if result is None:
        return []
    judge = result.judge
    model = judge.judge_model or "the default judge model"
    return [
        "",
        "## Pairwise judge",
        "",
        f"Each matched pair judged by `llm_pairwise` ({result.prompt_version}, {model}) in both orders; "
        "a side wins only when both orders prefer it, a pair whose orders disagree is a tie.",
        f"Criteria: {judge.criteria.replace(chr(10), ' ')}",
        "",
        f"- Pairs: {result.pairs} judged, {result.measured} measured, "
        f"{result.inconsistent} inconsistent (counted as ties)",
        f"- Candidate wins: {_rate(result.wins)}",
        f"- Ties: {_rate(result.ties)}",
        f"- Baseline wins: {_rate(result.losses)}",
        f"- Judge requests: {result.llm_requests} ({result.llm_retries} retries), "
        f"{result.judge_cache_hits} verdicts from the judge cache"
        + (
            f"; {result.spend.input_tokens}/{result.spend.output_tokens} tokens, {result.spend.cost_text}"
            if result.spend is not None
            else ""
        ),
    ]
