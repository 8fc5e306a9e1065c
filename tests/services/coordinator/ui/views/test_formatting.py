from __future__ import annotations

import math
from datetime import UTC, datetime, timedelta

import pytest

from services.coordinator.ui.views import formatting
from yardstick.api.pass_criteria import PassCriterion

pytestmark = pytest.mark.unit


def test_scores_deltas_and_intervals_round_to_three_decimals() -> None:
    assert formatting.score(0.12345) == "0.123"
    assert formatting.score(None) == formatting.score(math.nan) == "—"
    assert formatting.signed(-0.1) == "-0.100" and formatting.signed(0.0) == "+0.000"
    assert formatting.interval(0.1, 0.25) == "[0.100, 0.250]" and formatting.interval(None, 1.0) == ""


def test_rates_p_values_durations_and_counts() -> None:
    assert formatting.percent(0.5) == "50.0 %" and formatting.percent(None) == "—"
    assert formatting.p_value(0.0004) == "< 0.001" and formatting.p_value(0.0412) == "0.041"
    assert formatting.ms(12.4) == "12 ms" and formatting.ms(12_345.0) == "12.3 s"
    assert formatting.count(1234567) == "1,234,567"


def test_criteria_read_as_people_write_them() -> None:
    assert formatting.criterion(PassCriterion.model_validate(">=0.5")) == ">= 0.5"
    assert formatting.criterion(PassCriterion.model_validate("<=0.1")) == "<= 0.1"
    assert formatting.criterion(None) == "informational"


def test_ago_counts_seconds_minutes_hours_then_gives_the_date() -> None:
    now = datetime(2026, 11, 25, 12, 0, tzinfo=UTC)
    assert formatting.ago(now - timedelta(seconds=5), now) == "5 s ago"
    assert formatting.ago(now - timedelta(minutes=5), now) == "5 min ago"
    assert formatting.ago(now - timedelta(hours=3), now) == "3 h ago"
    assert formatting.ago(now - timedelta(days=3), now) == "2026-11-22 12:00"
    assert formatting.ago(None) == "—"
