"""`stack status`'s outbound line: what the stack's services may call beyond public addresses."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from services.stack.state import StackState
from services.stack.status import otlp_note, outbound_note

pytestmark = pytest.mark.unit


def state(**kw: str) -> StackState:
    return StackState(
        state_dir="/tmp/x",
        nats_url="nats://127.0.0.1:1",
        database_url="postgresql://x@127.0.0.1/y",
        namespace="ys",
        started_at=datetime.now(UTC),
        own_nats=True,
        own_postgres=True,
        **kw,
    )


def test_the_stack_allows_loopback_by_default_and_says_so() -> None:
    note = outbound_note(state())
    assert "may also call 127.0.0.0/8,::1/128" in note
    assert "TARGET_ALLOWED_NETWORKS" in note and "local development" in note


def test_an_empty_setting_means_public_addresses_only() -> None:
    assert outbound_note(state(target_allowed_networks="")) == (
        "outbound: http targets and upstream search may call public addresses only"
    )


def test_status_says_where_traces_go_and_with_which_variables() -> None:
    assert otlp_note(state()) is None  # a state file from before the ingest service
    note = otlp_note(state(otlp_url="http://127.0.0.1:8704"))
    assert note is not None
    assert "OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:8704" in note
    assert "OTEL_EXPORTER_OTLP_HEADERS=Authorization=Bearer%20<key>" in note
    assert "--role ingest" in note
    assert "LANGFUSE_BASE_URL=http://127.0.0.1:8704" in note and "gRPC" not in note
    with_grpc = otlp_note(state(otlp_url="http://127.0.0.1:8704", otlp_grpc_url="http://127.0.0.1:8705"))
    assert with_grpc is not None
    assert with_grpc.endswith(
        "OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:8705 with OTEL_EXPORTER_OTLP_PROTOCOL=grpc"
    )
