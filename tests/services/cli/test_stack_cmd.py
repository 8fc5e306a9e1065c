"""`yardstick stack status` says where instrumented applications send their traces."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from services.cli import stack_cmd
from services.stack import status
from services.stack.state import StackState

pytestmark = pytest.mark.unit


def test_status_prints_the_otlp_endpoint_and_the_variables(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(status, "stack_status", lambda state: [])  # no servers: only the notes
    state = StackState(
        state_dir="/tmp/x",
        nats_url="nats://127.0.0.1:1",
        database_url="postgresql://x@127.0.0.1/y",
        namespace="ys",
        started_at=datetime.now(UTC),
        own_nats=True,
        own_postgres=True,
        otlp_url="http://127.0.0.1:8704",
    )
    stack_cmd._print_status(state)
    out = " ".join(capsys.readouterr().out.split())
    assert "OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:8704" in out
    assert "OTEL_EXPORTER_OTLP_HEADERS=Authorization=Bearer%20<key>" in out
