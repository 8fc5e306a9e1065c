"""The judges through the ``openai`` provider against a provider on a bad day (a scripted local
OpenAI-compatible server): every item ends scored or "not measured" with the reason, none errors,
retries are bounded and counted in the score's metadata."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.evaluator_registry import run_item_evaluators
from tests.llm_provider import BadDayProvider, Reply
from yardstick.api.evaluation import Evaluation, EvaluatorSpec

pytestmark = pytest.mark.integration

RUBRIC = EvaluatorSpec(name="llm_rubric", args={"criteria": "Polite and confirms the order."})
RAG_OUTPUT = {
    "answer": "Redis failed at 3am [1].",
    "contexts": ["Redis outage at 3am"],
    "citations": [{"id": "d1", "text": "Redis outage at 3am"}],
}


async def score(spec: EvaluatorSpec, output: Any = "Sure, two hash browns.") -> Evaluation:
    [ev] = await run_item_evaluators(
        [spec], input={"query": "what failed?"}, output=output, expected_output=None, metadata={}
    )
    assert ev.error is None and ev.failure is None, ev  # never an evaluator error for these causes
    return ev


def verdict(score: float, reason: str = "ok", **kw: Any) -> Reply:
    return Reply.json({"reason": reason, "score": score}, **kw)


async def test_a_rubric_experiment_on_a_bad_day(
    provider: BadDayProvider, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One item per misbehaviour, scored in turn like an experiment's items."""
    provider.refuse = {"json_schema"}  # like llama.cpp's server: json_object works
    cases: list[tuple[str, list[Reply], float | None, str | None]] = [
        ("good", [verdict(4)], 0.75, None),
        (
            "prose around JSON",
            [Reply(content='Verdict:\n```json\n{"reason": "ok", "score": 5}\n```')],
            1.0,
            None,
        ),
        (
            "malformed twice",
            [Reply(content='{"reason": "ok", "score": '), Reply(content="4/5")],
            None,
            "parse",
        ),
        ("malformed once", [Reply(content="four"), verdict(2)], 0.25, None),
        ("out of scale", [verdict(10, "excellent")], None, "score 10 is outside the scale 1-5"),
        ("429 Retry-After", [Reply.error(429, retry_after="0.05"), verdict(3)], 0.5, None),
        ("502 then ok", [Reply.error(502), verdict(3)], 0.5, None),
        ("down", [Reply.error(503)] * 4, None, "provider unavailable"),
        ("slow then ok", [verdict(5, "late", delay_s=6), verdict(5)], 1.0, None),
    ]
    monkeypatch.setenv("LLM_TIMEOUT_S", "1.5")
    results: dict[str, Evaluation] = {}
    for name, replies, _value, _reason in cases:
        provider.then(*replies)
        results[name] = await score(RUBRIC)
        assert not provider.script, f"{name}: not every scripted reply was asked for"
    for name, _replies, value, reason in cases:
        ev = results[name]
        assert ev.value == value, (name, ev)
        if reason is None:
            assert ev.comment == "ok", (name, ev.comment)  # the judge's reason (the slow one was dropped)
        else:
            assert ev.comment is not None and ev.comment.startswith("not measured:"), (name, ev.comment)
            assert reason in ev.comment or reason in ev.metadata["reason"], (name, ev.comment)
        assert ev.metadata["judge_provider"] == "openai" and ev.metadata["judge_model"] == "bad-day-model"
        assert ev.metadata["prompt_version"] == "llm-rubric-v2"
    assert results["good"].metadata["format_fallbacks"] == 1  # json_schema refused once, then remembered
    # the json_object request carries the verdict's schema (a grammar on llama-cpp-python's server):
    # both fields required, the score bounded to the scale
    sent = provider.seen[1].body["response_format"]
    assert sent["type"] == "json_object" and sent["schema"]["required"] == ["reason", "score"]
    assert sent["schema"]["properties"]["score"] | {"description": ""} == {
        "description": "",
        "title": "Score",
        "type": "number",
        "minimum": 1.0,
        "maximum": 5.0,
    }
    assert results["prose around JSON"].metadata["format_fallbacks"] == 0
    assert all(r.metadata["response_format"] in ("json_object", None) for r in results.values())
    assert results["malformed twice"].metadata["raw_reply"] == "4/5"
    assert results["malformed twice"].metadata["parse_failures"] == 2
    assert results["malformed once"].metadata["parse_failures"] == 1
    assert results["out of scale"].metadata["raw_reply"] == json.dumps({"reason": "excellent", "score": 10})
    assert results["429 Retry-After"].metadata["retries"] == 1
    assert results["502 then ok"].metadata["retries"] == 1
    assert results["down"].metadata["retries"] == 3  # LLM_MAX_RETRIES, then not measured
    assert results["down"].metadata["llm_requests"] == 4
    assert results["slow then ok"].metadata["retries"] == 1
    assert results["good"].metadata["usage"] == {"input_tokens": 11, "output_tokens": 7}
    assert results["malformed once"].metadata["usage"] == {"input_tokens": 22, "output_tokens": 14}


async def test_faithfulness_over_two_calls_counts_both(provider: BadDayProvider) -> None:
    provider.refuse = {"json_schema"}
    provider.then(
        Reply(content='Here are the claims: {"claims": ["Redis failed at 3am"]}'),
        Reply.error(429, retry_after="0"),
        Reply.json({"verifications": [{"claim": "Redis failed at 3am", "supported": True}]}),
    )
    ev = await score(EvaluatorSpec(name="faithfulness"), RAG_OUTPUT)
    assert ev.value == 1.0
    meta = ev.metadata
    assert (meta["llm_requests"], meta["retries"], meta["format_fallbacks"]) == (4, 1, 1)
    assert meta["usage"] == {"input_tokens": 22, "output_tokens": 14}
    assert meta["prompt_version"] == "faithfulness-v2"


async def test_relevancy_and_citation_precision_not_measured_keep_the_raw_reply(
    provider: BadDayProvider,
) -> None:
    provider.then(verdict(1.5), Reply(content="All citations look fine to me."), Reply(content="Yes."))
    relevancy = await score(EvaluatorSpec(name="answer_relevancy"), RAG_OUTPUT)
    assert relevancy.value is None and relevancy.comment == "not measured: score 1.5 is outside the scale 0-1"
    citations = await score(EvaluatorSpec(name="citation_precision"), RAG_OUTPUT)
    assert citations.value is None and citations.comment is not None
    assert citations.comment.startswith("not measured: reply did not parse after 2 tries")
    assert citations.metadata["raw_reply"] == "Yes."
    assert provider.seen[0].response_format == "json_schema"  # this server accepts json_schema


async def test_llm_rubric_named_provider_and_model_per_judge(
    provider: BadDayProvider, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("JUDGE_PROVIDER", "auto")
    monkeypatch.delenv("JUDGE_MODEL")
    spec = EvaluatorSpec(
        name="llm_rubric",
        args={"criteria": "Short.", "judge_provider": "openai", "judge_model": "judge-b", "temperature": 0.3},
    )
    provider.then(verdict(5))
    ev = await score(spec)
    assert ev.value == 1.0 and ev.metadata["judge_model"] == "judge-b"
    assert (provider.seen[0].body["model"], provider.seen[0].body["temperature"]) == ("judge-b", 0.3)


async def test_a_mistral_judge_counts_requests_and_retries_like_openai(
    provider: BadDayProvider, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The judges' provider layer speaks the same chat-completions shape to Mistral's API: with
    ``MISTRAL_BASE_URL`` at the bad-day server, 429 and 5xx are retried and counted the same way."""
    monkeypatch.setenv("JUDGE_PROVIDER", "mistral")
    monkeypatch.setenv("MISTRAL_API_KEY", "not-a-real-key")
    monkeypatch.setenv("MISTRAL_BASE_URL", provider.base_url)
    provider.then(Reply.error(429, retry_after="0.05"), Reply.error(502), verdict(3))
    ev = await score(RUBRIC)
    meta = ev.metadata or {}
    assert ev.value == 0.5 and meta["judge_provider"] == "mistral"
    assert (meta["llm_requests"], meta["retries"]) == (3, 2) == (len(provider.seen), 2)
