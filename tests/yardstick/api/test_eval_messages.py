"""A target's ``rate_limit``: requests, tokens per minute or both, never neither; old stored limits
(requests only) still load."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from yardstick.api.eval_messages import HttpTarget, RateLimit

pytestmark = pytest.mark.unit


def test_neither_requests_nor_tokens_is_refused_naming_both() -> None:
    with pytest.raises(ValidationError, match="'requests' or 'tokens_per_minute'"):
        RateLimit()


@pytest.mark.parametrize("tokens", [0, 100_000_001])
def test_tokens_per_minute_is_bounded(tokens: int) -> None:
    with pytest.raises(ValidationError, match="tokens_per_minute"):
        RateLimit(tokens_per_minute=tokens)


def test_a_stored_requests_only_limit_still_loads() -> None:
    stored = '{"kind": "http", "url": "http://a.example/x", "rate_limit": {"requests": 30, "per": "minute"}}'
    limit = HttpTarget.model_validate_json(stored).rate_limit
    assert limit == RateLimit(requests=30, per="minute") and limit.interval_s == 2.0
    assert limit.tokens_per_minute is None


def test_a_tokens_only_limit_spaces_no_requests() -> None:
    limit = RateLimit(tokens_per_minute=90_000)
    assert limit.interval_s is None and limit.requests is None
