from __future__ import annotations

from datetime import UTC, datetime

import pytest

from services.search_proxy.query_hints import parse_hints

pytestmark = pytest.mark.unit

PEOPLE = {"sarah@acme.com": "Sarah Chen", "alex@acme.com": "Alex Rivera"}
NOW = datetime(2025, 12, 12, 12, tzinfo=UTC)  # a Friday


def day(month: int, d: int) -> datetime:
    return datetime(2025, month, d, tzinfo=UTC)


def test_actor_and_last_week_are_recognised_and_removed_from_the_text() -> None:
    hints = parse_hints("what did sarah push last week", PEOPLE, NOW)
    assert hints.actors == ["sarah@acme.com"]
    assert (hints.start, hints.end) == (day(12, 1), day(12, 8))
    assert hints.text == "what did push"


@pytest.mark.parametrize(
    ("query", "start", "end"),
    [
        ("errors on Dec 1st", day(12, 1), day(12, 2)),
        ("billing problems on November 26", day(11, 26), day(11, 27)),
        ("errors in November", day(11, 1), day(12, 1)),
        ("what was pushed yesterday", day(12, 11), day(12, 12)),
        ("PRs opened this week", day(12, 8), day(12, 15)),
        ("deploys last month", day(11, 1), day(12, 1)),
        ("what happened 2025-12-04", day(12, 4), day(12, 5)),
    ],
)
def test_date_hints(query: str, start: datetime, end: datetime) -> None:
    hints = parse_hints(query, PEOPLE, NOW)
    assert (hints.start, hints.end) == (start, end)


def test_possessive_last_name_and_unknown_by_person() -> None:
    assert parse_hints("Rivera's OAuth work", PEOPLE, NOW).actors == ["alex@acme.com"]
    unknown = parse_hints("pull requests by bob", PEOPLE, NOW)
    assert unknown.actors == ["bob"]
    assert unknown.text == "pull requests"


def test_plain_query_has_no_hints() -> None:
    hints = parse_hints("redis connection pool", PEOPLE, NOW)
    assert hints.actors == [] and hints.start is None and hints.text == "redis connection pool"
    assert parse_hints("may the queue drain", PEOPLE, NOW).start is None
