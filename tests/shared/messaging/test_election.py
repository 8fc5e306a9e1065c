"""Publishes and management calls ride out a leader election: retried with the same ``Nats-Msg-Id``
while the stream has no leader, for a bounded time; errors another try cannot mend are raised at once."""

from __future__ import annotations

from typing import Any

import nats.errors
import pytest
from nats.js.api import PubAck
from nats.js.errors import BadRequestError, NoStreamResponseError, ServiceUnavailableError

from shared.messaging import election, publish_once, through_election

pytestmark = pytest.mark.unit


@pytest.fixture(autouse=True)
def quick_pauses(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(election, "FIRST_PAUSE_S", 0.001)
    monkeypatch.setattr(election, "MAX_PAUSE_S", 0.002)


class LeaderlessJetStream:
    """Fails each publish with the next of ``errors``, then acknowledges; records every try."""

    def __init__(self, *errors: Exception) -> None:
        self.errors = list(errors)
        self.tries: list[dict[str, Any]] = []

    async def publish(self, subject: str, payload: bytes, **kwargs: Any) -> PubAck:
        self.tries.append({"subject": subject, "payload": payload, **kwargs})
        if self.errors:
            raise self.errors.pop(0)
        return PubAck(stream=kwargs["stream"], seq=1, duplicate=len(self.tries) > 1)


async def test_a_publish_waits_for_the_new_leader_with_the_same_msg_id() -> None:
    js: Any = LeaderlessJetStream(
        NoStreamResponseError(),
        nats.errors.TimeoutError(),
        ServiceUnavailableError(code=503, description="x"),
    )
    ack = await publish_once(js, "ys.eval.result", b"{}", msg_id="task-1", stream="RESULTS")
    assert ack.seq == 1
    assert len(js.tries) == 4
    assert {t["headers"]["Nats-Msg-Id"] for t in js.tries} == {"task-1"}
    assert all(0 < t["timeout"] <= election.TRY_TIMEOUT_S for t in js.tries)


async def test_a_refusal_that_another_try_cannot_mend_is_raised_at_once() -> None:
    js: Any = LeaderlessJetStream(BadRequestError(code=400, description="wrong stream"))
    with pytest.raises(BadRequestError):
        await publish_once(js, "s", b"{}", msg_id="m", stream="S")
    assert len(js.tries) == 1


async def test_no_leader_within_the_budget_raises_the_last_error() -> None:
    js: Any = LeaderlessJetStream(*(NoStreamResponseError() for _ in range(10_000)))
    with pytest.raises(NoStreamResponseError):
        await publish_once(js, "s", b"{}", msg_id="m", stream="S", budget_s=0.05)
    assert 1 < len(js.tries) < 10_000


async def test_any_call_is_given_the_time_left_for_its_try() -> None:
    timeouts: list[float] = []

    async def call(try_timeout_s: float) -> str:
        timeouts.append(try_timeout_s)
        if len(timeouts) < 3:
            raise TimeoutError
        return "declared"

    assert await through_election(call, what="add_consumer", budget_s=1.0) == "declared"
    assert len(timeouts) == 3 and all(0 < t <= 1.0 for t in timeouts)


@pytest.mark.parametrize(
    ("exc", "retried"),
    [
        (NoStreamResponseError(), True),
        (nats.errors.TimeoutError(), True),
        (nats.errors.NoRespondersError(), True),
        (ServiceUnavailableError(code=503), True),
        (BadRequestError(code=400), False),
        (ValueError("bug"), False),
    ],
)
def test_what_counts_as_an_election(exc: Exception, retried: bool) -> None:
    assert election.passes_with_election(exc) is retried
