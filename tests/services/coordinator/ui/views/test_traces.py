"""The trace page's view of a trace from any application: its messages under their own generic roles
(user, assistant, tool), never the drive-thru agent's "customer"."""

from __future__ import annotations

import pytest

from services.coordinator.ui.views.traces import trace_page_view
from tests.shared.traces.sdk_spans import record_of
from tests.shared.traces.test_openinference_mapping import rag_agent
from yardstick.api.traces import TraceDetail

pytestmark = pytest.mark.unit


def test_an_openinference_trace_reads_user_and_assistant() -> None:
    record = record_of(rag_agent, service="support-bot")
    view = trace_page_view(TraceDetail.model_construct(record=record))
    roles = [entry.role for call in view.calls for entry in call.transcript]
    assert roles[:2] == ["system", "user"] and "assistant" in roles
    assert "customer" not in roles
