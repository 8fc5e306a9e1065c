"""``client.traces``: sampled OpenTelemetry traces of any application (list, one whole) and backfill
jobs (evaluators run over the stored traces of a time window)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from yardstick.api.evaluation import EvaluatorSpec
from yardstick.api.traces import BackfillCreate, BackfillOut, TraceDetail, TracePage
from yardstick.transport import Transport, segment


class Traces:
    def __init__(self, api: Transport) -> None:
        self._api = api

    def list(
        self,
        *,
        service: str | None = None,
        model: str | None = None,
        since: datetime | None = None,
        until: datetime | None = None,
        error: bool | None = None,
        limit: int = 50,
        offset: int = 0,
    ) -> TracePage:
        """Sampled traces, newest first, with their online scores (every filter given must match)."""
        params = {
            "service": service,
            "model": model,  # not a keyword of Transport.get, whose first argument is named model
            "since": None if since is None else since.isoformat(),
            "until": None if until is None else until.isoformat(),
            "error": None if error is None else str(error).lower(),
            "limit": limit,
            "offset": offset,
        }
        query = {k: v for k, v in params.items() if v is not None}
        return TracePage.model_validate_json(self._api.request("GET", "/traces", params=query).content)

    def get(self, trace_id: str) -> TraceDetail:
        """One trace whole: messages, tool calls, LLM calls, span tree, scores."""
        return self._api.get(TraceDetail, f"/traces/{segment(trace_id)}")

    def backfill(
        self,
        evaluators: Sequence[EvaluatorSpec],
        *,
        since: str,
        until: str | None = None,
        application: str | None = None,
    ) -> BackfillOut:
        """Start scoring the stored traces started in ``[since, until)`` (``7d``, ``12h`` or ISO 8601)."""
        body = BackfillCreate(evaluators=list(evaluators), since=since, until=until, application=application)
        return self._api.post(BackfillOut, "/traces/backfill", body)

    def backfill_progress(self, backfill_id: str) -> BackfillOut:
        return self._api.get(BackfillOut, f"/traces/backfill/{segment(backfill_id)}")
