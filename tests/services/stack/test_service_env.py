"""What the launcher hands each service: only the agent gets the ingest endpoint and its ingest key,
so it reports its chat turns as traces to this stack."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from opentelemetry.util.re import parse_env_headers

from services.agent.settings import AgentSettings
from services.stack.launcher import service_env
from services.stack.services_spec import service_specs
from services.stack.state import StackState

pytestmark = pytest.mark.unit


def _state(key: str | None) -> StackState:
    return StackState(
        state_dir="/tmp/unused",
        nats_url="nats://127.0.0.1:1",
        database_url="postgresql://unused/unused",
        namespace="ys",
        started_at=datetime.now(UTC),
        own_nats=False,
        own_postgres=False,
        otlp_url="http://127.0.0.1:8704",
        agent_ingest_key=key,
    )


def test_only_the_agent_reports_to_the_ingest_service_with_its_key() -> None:
    specs = {spec.name: spec for spec in service_specs()}
    agent = service_env(_state("ys_key_123"), specs["agent"], 8701, "secret", 0)
    assert agent["OTEL_EXPORTER_OTLP_ENDPOINT"] == "http://127.0.0.1:8704"
    settings = AgentSettings.model_validate({**agent, "database_url": "postgresql://unused/unused"})
    assert settings.otlp_endpoint == "http://127.0.0.1:8704"
    assert settings.otlp_headers is not None
    headers = parse_env_headers(settings.otlp_headers.get_secret_value(), liberal=True)
    assert headers == {"authorization": "Bearer ys_key_123"}
    assert settings.otel_service_name == "drive-thru"
    for name in ("sampler", "coordinator", "ingest"):
        env = service_env(_state("ys_key_123"), specs[name], 8700, "secret", 0)
        assert "ys_key_123" not in env.get("OTEL_EXPORTER_OTLP_HEADERS", ""), name
        assert ("INGEST_GRPC_PORT" in env) is (name == "ingest"), name


def test_the_ingest_gets_its_grpc_port_beside_its_http_port(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("YARDSTICK_PORT_BASE", "9100")
    ingest = {spec.name: spec for spec in service_specs()}["ingest"]
    env = service_env(_state(None), ingest, 9104, "secret", 0)
    assert (env["HTTP_PORT"], env["INGEST_GRPC_PORT"]) == ("9104", "9105")


def test_a_stack_without_an_agent_key_sets_no_exporter() -> None:
    agent = service_env(_state(None), {s.name: s for s in service_specs()}["agent"], 8701, "secret", 0)
    assert (
        agent.get("OTEL_EXPORTER_OTLP_HEADERS") is None or "Bearer" not in agent["OTEL_EXPORTER_OTLP_HEADERS"]
    )


def test_several_samplers_each_get_a_port_no_other_service_has(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("YARDSTICK_SAMPLERS", "3")
    monkeypatch.setenv("YARDSTICK_EVAL_WORKERS", "2")
    specs = service_specs()
    ports = [spec.offset(index) for spec in specs for index in range(spec.replicas)] + [
        spec.grpc_port_offset for spec in specs if spec.grpc_port_offset is not None
    ]
    sampler = {spec.name: spec for spec in specs}["sampler"]
    assert sampler.replicas == 3
    assert [sampler.offset(i) for i in range(3)] == [3, 20, 21]  # the first where one sampler always was
    assert len(ports) == len(set(ports))


def test_one_sampler_by_default(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("YARDSTICK_SAMPLERS", raising=False)
    assert {spec.name: spec for spec in service_specs()}["sampler"].replicas == 1
