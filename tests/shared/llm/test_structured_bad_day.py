"""The structured call against a provider on a bad day (a scripted local server)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TypeVar

import pytest
from pydantic import BaseModel

from shared.llm import PROCESS_FORMATS, LlmCallStats, ResponseFormat, StructuredLlm, llm_config
from shared.llm.provider_gate import ProviderThrottled, WaitedTooLong, provider_gate_in_use
from tests.llm_provider import BadDayProvider, Reply

T = TypeVar("T")

pytestmark = pytest.mark.integration


class Verdict(BaseModel):
    reason: str
    score: float


GOOD = {"reason": "fine", "score": 4}
STRICT = {
    "type": "object",
    "title": "Verdict",
    "properties": {
        "reason": {"title": "Reason", "type": "string"},
        "score": {"title": "Score", "type": "number"},
    },
    "required": ["reason", "score"],
    "additionalProperties": False,
}


def client(**limits: float) -> StructuredLlm:
    config = llm_config("openai", "bad-day-model")
    return StructuredLlm(config.model_copy(update=limits) if limits else config)


async def test_a_good_day_uses_json_schema_and_reports_tokens(provider: BadDayProvider) -> None:
    provider.then(Reply.json(GOOD, usage=(120, 30)))
    reply = await client().ask(Verdict, "Grade this.")
    assert reply.value == Verdict(reason="fine", score=4) and reply.reason is None
    assert reply.stats == LlmCallStats(
        requests=1, input_tokens=120, output_tokens=30, response_format="json_schema"
    )
    [seen] = provider.seen
    assert seen.body["response_format"] == {
        "type": "json_schema",
        "json_schema": {"name": "Verdict", "schema": STRICT, "strict": True},
    }
    assert "JSON" in seen.body["messages"][0]["content"] and seen.body["model"] == "bad-day-model"


@pytest.mark.parametrize("status", [400, 422, 500])
async def test_json_schema_refused_falls_back_to_json_object_with_the_schema_and_is_remembered(
    provider: BadDayProvider, status: int
) -> None:
    provider.refuse, provider.refuse_status = {"json_schema"}, status
    provider.then(Reply.json(GOOD), Reply.json(GOOD))
    first = await client().ask(Verdict, "Grade this.")
    assert first.value is not None and first.stats.format_fallbacks == 1
    assert first.stats.response_format == "json_object" and first.stats.retries == 0
    second = await client().ask(Verdict, "Grade that.")
    assert second.value is not None and second.stats.format_fallbacks == 0 and second.stats.requests == 1
    assert [s.response_format for s in provider.seen] == ["json_schema", "json_object", "json_object"]
    assert provider.statuses() == [status, 200, 200]
    # llama-cpp-python's server makes this schema a grammar: the reply cannot leave a field out
    assert provider.seen[1].body["response_format"] == {"type": "json_object", "schema": STRICT}


async def test_the_remembered_way_belongs_to_one_endpoint_and_model(provider: BadDayProvider) -> None:
    provider.refuse = {"json_schema"}
    provider.then(Reply.json(GOOD), Reply.json(GOOD))
    await client().ask(Verdict, "Grade this.")
    other = StructuredLlm(llm_config("openai", "another-model"))
    reply = await other.ask(Verdict, "Grade this.")
    assert reply.value is not None and reply.stats.format_fallbacks == 1
    assert [s.response_format for s in provider.seen] == ["json_schema", "json_object"] * 2


async def test_a_server_that_ignores_response_format_still_works(provider: BadDayProvider) -> None:
    provider.then(Reply(content='Sure! Here is my verdict: {"reason": "fine", "score": 3} Hope it helps.'))
    reply = await client().ask(Verdict, "Grade this.")
    assert reply.value == Verdict(reason="fine", score=3)
    assert (reply.stats.format_fallbacks, reply.stats.parse_failures) == (0, 0)
    assert reply.stats.response_format == "json_schema" and provider.statuses() == [200]


async def test_a_500_that_does_not_name_the_format_is_an_outage_not_a_refusal(
    provider: BadDayProvider,
) -> None:
    provider.then(Reply.error(500, body="upstream connect error"), Reply.json(GOOD))
    reply = await client().ask(Verdict, "Grade this.")
    assert reply.value is not None and (reply.stats.retries, reply.stats.format_fallbacks) == (1, 0)
    assert [s.response_format for s in provider.seen] == ["json_schema", "json_schema"]


async def test_a_400_that_does_not_name_the_format_is_not_retried_in_a_simpler_way(
    provider: BadDayProvider,
) -> None:
    provider.then(Reply.error(400, body="maximum context length is 2048 tokens"))
    reply = await client().ask(Verdict, "Grade this.")
    assert reply.value is None and reply.reason is not None and "maximum context length" in reply.reason
    assert (reply.stats.requests, reply.stats.format_fallbacks) == (1, 0)


@pytest.mark.parametrize(("setting", "sent"), [("json_object", "json_object"), ("off", None)])
async def test_the_setting_names_the_one_way_to_ask(
    provider: BadDayProvider, monkeypatch: pytest.MonkeyPatch, setting: str, sent: str | None
) -> None:
    monkeypatch.setenv("LLM_STRUCTURED_OUTPUT", setting)
    provider.then(Reply.json(GOOD))
    reply = await client().ask(Verdict, "Grade this.")
    assert reply.value is not None and reply.stats.response_format == (sent or "text")
    assert [s.response_format for s in provider.seen] == [sent]


async def test_a_pinned_way_that_is_refused_is_not_measured_without_falling_back(
    provider: BadDayProvider, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LLM_STRUCTURED_OUTPUT", "json_schema")
    provider.refuse = {"json_schema"}
    reply = await client().ask(Verdict, "Grade this.")
    assert reply.value is None and reply.reason is not None
    assert "json_schema: HTTP 500" in reply.reason
    assert "LLM_STRUCTURED_OUTPUT=json_schema allows no other way" in reply.reason
    assert (reply.stats.requests, reply.stats.format_fallbacks) == (1, 0)
    assert PROCESS_FORMATS.first_way(llm_config("openai", "bad-day-model")) is ResponseFormat.JSON_SCHEMA


async def test_every_format_refused_falls_back_to_plain_text(provider: BadDayProvider) -> None:
    provider.refuse = {"json_schema", "json_object"}
    provider.then(Reply(content='Here you go: ```json\n{"reason": "fine", "score": 2}\n```'))
    reply = await client().ask(Verdict, "Grade this.")
    assert reply.value == Verdict(reason="fine", score=2)
    assert (reply.stats.format_fallbacks, reply.stats.response_format) == (2, "text")
    assert "response_format" not in provider.seen[-1].body


async def test_malformed_json_is_asked_again_then_not_measured_with_the_raw_reply(
    provider: BadDayProvider,
) -> None:
    provider.then(
        Reply(content='{"reason": "fine", "score": '), Reply(content="I would say four out of five.")
    )
    reply = await client().ask(Verdict, "Grade this.")
    assert reply.value is None
    assert reply.reason is not None and reply.reason.startswith("reply did not parse after 2 tries")
    assert reply.raw == "I would say four out of five."
    assert (reply.stats.requests, reply.stats.parse_failures, reply.stats.retries) == (2, 2, 0)
    assert (reply.stats.input_tokens, reply.stats.output_tokens) == (22, 14)  # both replies counted
    retry_messages = provider.seen[1].body["messages"]
    assert [m["role"] for m in retry_messages] == ["user", "assistant", "user"]
    assert retry_messages[1]["content"] == '{"reason": "fine", "score": '
    assert "could not be used (no JSON object found in the reply)" in retry_messages[2]["content"]


async def test_a_second_reply_that_parses_is_used(provider: BadDayProvider) -> None:
    provider.then(Reply(content="not json"), Reply.json(GOOD))
    reply = await client().ask(Verdict, "Grade this.")
    assert reply.value is not None and reply.stats.parse_failures == 1 and reply.stats.requests == 2


async def test_429_honours_retry_after_and_counts_the_retry(provider: BadDayProvider) -> None:
    provider.then(Reply.error(429, retry_after="0.2"), Reply.error(503, retry_after="0"), Reply.json(GOOD))
    reply = await client().ask(Verdict, "Grade this.")
    assert reply.value is not None
    assert (reply.stats.retries, reply.stats.requests) == (2, 3)
    assert reply.stats.waited_s == pytest.approx(0.2)
    assert provider.statuses() == [429, 503, 200]


async def test_a_retry_after_beyond_the_allowed_wait_gives_up_at_once(provider: BadDayProvider) -> None:
    provider.then(Reply.error(429, retry_after="120"))
    reply = await client().ask(Verdict, "Grade this.")
    assert reply.value is None and reply.reason is not None
    assert "asked to retry after 120 s, more than the 30 s allowed" in reply.reason
    assert (reply.stats.requests, reply.stats.retries) == (1, 0)


async def test_500s_are_retried_a_bounded_number_of_times(provider: BadDayProvider) -> None:
    reply = await client(max_retries=2).ask(Verdict, "Grade this.")  # the fallback: 500 forever
    assert reply.value is None and reply.reason is not None
    assert reply.reason.startswith("provider unavailable:") and "HTTP 500" in reply.reason
    assert "after 2 retries" in reply.reason
    # a 500 that does not name the format is an outage: json_schema is sent 1 + 2 times, no fallback
    assert (reply.stats.format_fallbacks, reply.stats.retries, reply.stats.requests) == (0, 2, 3)
    assert [s.response_format for s in provider.seen] == ["json_schema"] * 3
    assert reply.stats.parse_failures == 0  # an unavailable provider ends the call: no second reply asked


async def test_500s_in_text_mode_after_every_format_was_refused(provider: BadDayProvider) -> None:
    provider.refuse = {"json_schema", "json_object"}
    reply = await client(max_retries=1).ask(Verdict, "Grade this.")
    assert reply.value is None and reply.reason is not None and "after 1 retries" in reply.reason
    assert (reply.stats.format_fallbacks, reply.stats.retries, reply.stats.requests) == (2, 1, 4)
    assert [s.response_format for s in provider.seen] == ["json_schema", "json_object", None, None]


async def test_a_transient_500_in_text_mode_is_retried(provider: BadDayProvider) -> None:
    PROCESS_FORMATS.accepted(client().config, ResponseFormat.TEXT)
    provider.then(Reply.error(502), Reply.error(500), Reply.json(GOOD))
    reply = await client().ask(Verdict, "Grade this.")
    assert reply.value is not None and reply.stats.retries == 2 and provider.statuses() == [502, 500, 200]


async def test_a_slow_reply_times_out_and_is_retried(provider: BadDayProvider) -> None:
    provider.then(Reply.json(GOOD, delay_s=6), Reply.json(GOOD))
    reply = await client(timeout_s=1.5).ask(Verdict, "Grade this.")
    assert reply.value is not None and reply.stats.retries == 1 and reply.stats.requests == 2


async def test_a_slow_provider_ends_not_measured(provider: BadDayProvider) -> None:
    provider.fallback = Reply.json(GOOD, delay_s=5)
    reply = await client(timeout_s=0.2, max_retries=1).ask(Verdict, "Grade this.")
    assert reply.value is None and reply.reason is not None
    assert "no reply within 0.2 s" in reply.reason and reply.stats.retries == 1


async def test_a_200_whose_body_is_not_json_is_retried(provider: BadDayProvider) -> None:
    provider.then(Reply(body="<html>gateway</html>"), Reply.json(GOOD))
    reply = await client().ask(Verdict, "Grade this.")
    assert reply.value is not None and reply.stats.retries == 1


async def test_json_in_a_tool_call_is_read(provider: BadDayProvider) -> None:
    provider.then(Reply.tool_call("Verdict", GOOD))
    reply = await client().ask(Verdict, "Grade this.")
    assert reply.value == Verdict(reason="fine", score=4)


async def test_an_unauthorised_key_is_not_retried(provider: BadDayProvider) -> None:
    provider.then(Reply.error(401, body="invalid api key"))
    reply = await client().ask(Verdict, "Grade this.")
    assert reply.value is None and reply.reason is not None and "HTTP 401: invalid api key" in reply.reason
    assert reply.stats.requests == 1


async def test_no_server_at_all_is_not_measured(provider: BadDayProvider) -> None:
    config = llm_config("openai", "m").model_copy(
        update={"base_url": "http://127.0.0.1:9/v1", "max_retries": 1, "backoff_s": 0.0}
    )
    reply = await StructuredLlm(config).ask(Verdict, "Grade this.")
    assert reply.value is None and reply.reason is not None and "connection failed" in reply.reason
    assert reply.stats.retries == 1


async def test_a_200_that_is_not_a_chat_completion_is_not_measured(provider: BadDayProvider) -> None:
    provider.then(Reply(body='{"choices": {"0": "surprise"}}'))
    reply = await client().ask(Verdict, "Grade this.")
    assert reply.value is None and reply.reason is not None
    assert reply.reason.startswith("the reply is not a chat completion (choices:")


async def test_every_call_bounds_the_reply_length(
    provider: BadDayProvider, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A base model never stops on its own: without max_tokens it writes until its context is full
    (seen with Gemma 3 270M under llama.cpp, minutes per call on a CPU)."""
    monkeypatch.setenv("LLM_MAX_OUTPUT_TOKENS", "256")
    provider.then(Reply.json(GOOD), Reply.json(GOOD))
    await client().ask(Verdict, "Grade this.")
    from shared.llm.chat_models import chat_model

    await chat_model(llm_config("openai", "bad-day-model")).ainvoke("hello")
    assert [seen.body.get("max_tokens") for seen in provider.seen] == [256, 256]


class RecordingGate:
    """A provider gate that waits out each throttle at once (no pause), up to ``patience`` of them."""

    def __init__(self, patience: int) -> None:
        self.patience = patience
        self.providers: list[str] = []
        self.throttles: list[tuple[int, float | None]] = []

    async def call_provider(self, provider: str, attempt: Callable[[], Awaitable[T]]) -> T:
        self.providers.append(provider)
        while True:
            try:
                return await attempt()
            except ProviderThrottled as exc:
                self.throttles.append((exc.status, exc.retry_after_s))
                if len(self.throttles) > self.patience:
                    raise WaitedTooLong("asked to wait 9 s in all") from exc


async def test_inside_a_gate_throttles_are_its_to_wait_out_not_retries(provider: BadDayProvider) -> None:
    provider.then(
        Reply.error(429, retry_after="0"),
        Reply.error(503, retry_after="1"),
        Reply.error(429),
        Reply.json(GOOD),
    )
    gate = RecordingGate(patience=5)
    with provider_gate_in_use(gate):
        reply = await client(max_retries=0).ask(Verdict, "Grade this.")
    assert reply.value is not None and reply.stats.retries == 0 and reply.stats.requests == 4
    assert gate.throttles == [(429, 0.0), (503, 1.0), (429, None)]
    assert gate.providers == [gate.providers[0]] and gate.providers[0].startswith("llm http://127.0.0.1:")


async def test_a_gate_that_waited_too_long_makes_the_verdict_not_measured(provider: BadDayProvider) -> None:
    provider.then(*[Reply.error(429, retry_after="0")] * 3)
    with provider_gate_in_use(RecordingGate(patience=1)):
        reply = await client().ask(Verdict, "Grade this.")
    assert reply.value is None and reply.reason is not None
    assert "rate limited for too long: asked to wait 9 s in all" in reply.reason


async def test_a_503_without_retry_after_is_an_outage_retried_as_before(provider: BadDayProvider) -> None:
    provider.then(Reply.error(503), Reply.json(GOOD))
    gate = RecordingGate(patience=5)
    with provider_gate_in_use(gate):
        reply = await client().ask(Verdict, "Grade this.")
    assert reply.value is not None and reply.stats.retries == 1 and gate.throttles == []
