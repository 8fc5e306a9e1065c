"""How numbers and times read on every page: one rounding rule per kind of value."""

from __future__ import annotations

import math
from datetime import UTC, datetime

from yardstick.api.pass_criteria import PassCriterion


def score(value: float | None) -> str:
    """Scores and means: three decimals; '—' when not measured."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "—"
    return f"{value:.3f}"


def signed(value: float | None) -> str:
    """Deltas: explicit sign, three decimals."""
    if value is None:
        return "—"
    return f"{value:+.3f}"


def interval(low: float | None, high: float | None) -> str:
    if low is None or high is None:
        return ""
    return f"[{low:.3f}, {high:.3f}]"


def percent(value: float | None) -> str:
    """Rates as percentages with one decimal."""
    if value is None:
        return "—"
    return f"{value * 100:.1f} %"


def p_value(value: float | None) -> str:
    if value is None:
        return "—"
    if value < 0.001:
        return "< 0.001"
    return f"{value:.3f}"


def ms(value: float | None) -> str:
    """Durations: whole milliseconds below 10 s, seconds with one decimal above."""
    if value is None:
        return "—"
    if value >= 10_000:
        return f"{value / 1000:.1f} s"
    return f"{value:,.0f} ms"


def count(value: int | None) -> str:
    return "—" if value is None else f"{value:,}"


def criterion(value: PassCriterion | None) -> str:
    """'>= 0.5', '<= 0.1' or 'informational'."""
    return "informational" if value is None else value.describe()


def ago(when: datetime | None, now: datetime | None = None) -> str:
    """'42 s ago', '5 min ago', '3 h ago', then the date."""
    if when is None:
        return "—"
    now = now or datetime.now(UTC)
    seconds = (now - when).total_seconds()
    if seconds < 60:
        return f"{max(0, int(seconds))} s ago"
    if seconds < 3600:
        return f"{int(seconds // 60)} min ago"
    if seconds < 86_400:
        return f"{int(seconds // 3600)} h ago"
    return when.strftime("%Y-%m-%d %H:%M")


def timestamp(when: datetime | None) -> str:
    return "—" if when is None else when.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S UTC")


def label(value: object) -> str:
    """A reviewer's or an evaluator's answer as people read it: pass/fail for booleans."""
    if isinstance(value, bool):
        return "pass" if value else "fail"
    return str(value)


FILTERS = {
    "label": label,
    "score": score,
    "signed": signed,
    "interval": interval,
    "percent": percent,
    "p_value": p_value,
    "ms": ms,
    "count": count,
    "criterion": criterion,
    "ago": ago,
    "timestamp": timestamp,
}
