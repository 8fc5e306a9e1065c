"""Issue 24's acceptance path, end to end: an application instrumented with the real OpenTelemetry SDK
and ``opentelemetry-instrumentation-openai-v2`` (the ``openai`` client against a fake
OpenAI-compatible server) exports over OTLP/HTTP to the real ingest service; the sampler assembles,
samples, stores and scores the traces; they appear in ``GET /traces?service=NAME`` and
``GET /traces/{id}`` with messages, tool calls and tokens, on the web UI (headless Chromium,
screenshots under .yardstick/screens/), and one is added to a dataset from its page."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import httpx
import openai
import pytest
from nats.aio.client import Client as NatsClient
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.instrumentation.openai_v2 import OpenAIInstrumentor
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor
from playwright.async_api import Browser, expect
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from shared.db.api_keys import create_key_sync
from tests.services.coordinator.ui.browser import watched_page
from tests.services.coordinator.ui.test_sign_in import one_time_link
from tests.services.ingest.harness import SECRET, Ingest, ingest_settings, serve_ingest
from tests.services.live_api import Api
from tests.services.sampler.consuming import tracing_sampler
from tests.shared.traces.fake_openai import TOOLS, fake_openai  # noqa: F401  (a fixture)
from tests.shared.traces.test_openai_instrumentation import latest_genai_conventions  # noqa: F401
from yardstick.api.roles import Role
from yardstick.api.topology import Topology

pytestmark = [pytest.mark.integration, pytest.mark.timeout(180)]

Sessions = async_sessionmaker[AsyncSession]
APP = "burger-bot"
QUESTIONS = ("How much is a burger?", "And how much are two burgers?")
CONFIG = {
    "rate": 0.0,  # the project samples nothing; this application everything
    "applications": {
        APP: {
            "rate": 1.0,
            "evaluators": [
                {"name": "tool_called", "args": {"tool": "get_price"}},
                {"name": "tool_sequence", "args": {"tools": ["get_price", "refund"]}},
                {"name": "latency_budget", "args": {"max_ms": 60000}},
            ],
        }
    },
}


@pytest.fixture
def ingest(database_url: str, nats_url: str, topology: Topology, nats_client: NatsClient) -> Iterator[Ingest]:
    with serve_ingest(ingest_settings(database_url, nats_url, topology)) as served:
        yield served


def run_instrumented_app(traces_url: str, key: str, llm_url: str) -> None:
    """The customer's application: two conversations, each a turn that calls a tool, exported by the
    SDK's OTLP/HTTP exporter (protobuf) with the ingest key."""
    provider = TracerProvider(resource=Resource.create({"service.name": APP}))
    exporter = OTLPSpanExporter(endpoint=traces_url, headers={"Authorization": f"Bearer {key}"})
    provider.add_span_processor(BatchSpanProcessor(exporter))
    instrumentor = OpenAIInstrumentor()  # type: ignore[no-untyped-call]
    instrumentor.instrument(tracer_provider=provider)
    try:
        client = openai.OpenAI(base_url=llm_url, api_key="test-key", max_retries=0)
        tracer = provider.get_tracer("burger.app")
        for n, question in enumerate(QUESTIONS):
            messages: list[Any] = [
                {"role": "system", "content": "You sell burgers."},
                {"role": "user", "content": question},
            ]
            with tracer.start_as_current_span("invoke_agent burger-bot") as turn:
                turn.set_attribute("gen_ai.operation.name", "invoke_agent")
                turn.set_attribute("gen_ai.conversation.id", f"conversation-{n}")
                first = client.chat.completions.create(model="gpt-fake", messages=messages, tools=TOOLS)
                asked = first.choices[0].message
                assert asked.tool_calls is not None
                with tracer.start_as_current_span("execute_tool get_price") as tool:
                    tool.set_attribute("gen_ai.operation.name", "execute_tool")
                    tool.set_attribute("gen_ai.tool.name", "get_price")
                    tool.set_attribute("gen_ai.tool.call.id", asked.tool_calls[0].id)
                    tool.set_attribute("gen_ai.tool.call.result", '{"price": 5}')
                messages += [
                    asked.model_dump(exclude_none=True),
                    {"role": "tool", "tool_call_id": asked.tool_calls[0].id, "content": '{"price": 5}'},
                ]
                client.chat.completions.create(model="gpt-fake", messages=messages, tools=TOOLS)
        assert provider.force_flush(30_000)
    finally:
        instrumentor.uninstrument()
        provider.shutdown()


async def test_instrumented_traffic_is_sampled_scored_shown_and_added_to_a_dataset(
    browser: Browser,
    api: Api,
    ingest: Ingest,
    nats_client: NatsClient,
    topology: Topology,
    session_factory: Sessions,
    database_url: str,
    fake_openai: str,  # noqa: F811
    latest_genai_conventions: None,  # noqa: F811
) -> None:
    async with httpx.AsyncClient(base_url=api.url, headers={"Authorization": f"Bearer {api.key}"}) as c:
        assert (await c.put("/online/config", json=CONFIG)).status_code == 200
        key = await asyncio.to_thread(create_key_sync, database_url, SECRET, APP, Role.INGEST)
        async with tracing_sampler(nats_client, topology, session_factory) as handler:
            await asyncio.to_thread(run_instrumented_app, ingest.traces_url, key, fake_openai)
            await asyncio.wait_for(handler.wait_handled(2, "stored"), 60)

        page = (await c.get("/traces", params={"service": APP})).json()
        assert page["total"] == 2
        by_conversation = {t["conversation_id"]: t for t in page["items"]}
        first = by_conversation["conversation-0"]
        assert first["model"] == "gpt-fake-2026" and first["tool_names"] == ["get_price"]
        assert (first["input_tokens"], first["output_tokens"]) == (40, 12)
        assert first["scores"] == {"latency_budget": 1.0, "tool_called": 1.0, "tool_sequence": 0.0}
        assert (await c.get("/traces", params={"service": APP, "below": "tool_sequence=1"})).json()[
            "total"
        ] == 2
        assert (await c.get("/traces", params={"service": "another-app"})).json()["total"] == 0

        detail = (await c.get(f"/traces/{first['trace_id']}")).json()
        record = detail["record"]
        assert [m["content"] for m in record["input_messages"]] == ["You sell burgers.", QUESTIONS[0]]
        assert record["output_messages"][0]["content"] == "A burger is 5 dollars."
        assert record["tool_calls"][0]["name"] == "get_price"
        assert record["tool_calls"][0]["arguments"] == {"item": "burger"}
        assert record["tool_calls"][0]["result"] == {"price": 5}
        assert [child["kind"] for child in record["roots"][0]["children"]] == ["llm", "tool", "llm"]

        metrics = (await c.get("/online/metrics", params={"window": "1h", "bucket": "5m"})).json()
        series = {(s["evaluator"], s["application"], s["model"]): s["n"] for s in metrics["series"]}
        assert series[("tool_called", APP, "gpt-fake-2026")] == 2  # scores over time, per application

        view = await watched_page(browser, width=1360)
        await view.visit(await one_time_link(api, f"/ui/traces?service={APP}"), screenshot="traces-list")
        await expect(view.page.locator("[data-traces] tbody tr")).to_have_count(2)
        await expect(view.page.locator("[data-traces]")).to_contain_text("gpt-fake-2026")
        await view.page.get_by_role("link", name=QUESTIONS[0]).click()
        await view.page.wait_for_url(f"**/ui/traces/{first['trace_id']}")
        await view.page.wait_for_load_state("networkidle")
        await view.shot("trace-detail")
        await expect(view.page.locator("[data-span-tree] .wf-row")).to_have_count(4)
        await expect(view.page.locator("[data-tool-calls]")).to_contain_text('"item": "burger"')
        await expect(view.page.locator("[data-llm-call]")).to_have_count(2)
        await expect(view.page.locator("[data-trace-scores]")).to_contain_text("tool_sequence")
        await view.page.get_by_label("Dataset to add the trace to").fill("burger-bot/production")
        await view.page.get_by_role("button", name="Add to dataset").click()
        await expect(view.page.get_by_role("status")).to_contain_text("burger-bot/production as version 1")
        await view.shot("trace-added")
        await view.visit(f"{api.url}/ui/online", screenshot="online-with-applications")
        await expect(view.page.locator("main")).to_contain_text("tool_sequence")  # burger-bot's own
        await expect(view.page.locator('[data-online-chart="tool_called"] canvas')).to_be_visible()
        await expect(view.page.locator("[data-legacy-samples]")).to_have_count(0)  # no turns before traces
        await expect(view.page.locator("main")).not_to_contain_text("send traffic to the agent")
        await expect(view.page.get_by_role("link", name=APP)).to_have_attribute(
            "href", f"/ui/traces?service={APP}"
        )
        assert view.clean() == []

        versions = (await c.get("/datasets/burger-bot/production/versions")).json()
        assert [(v["version"], v["status"]) for v in versions] == [(1, "needs_review")]
