"""Actor and date hints in a free-text query ("by sarah", "last week", "Dec 1st"), used by the
``thorough`` mode. Relative dates resolve against a reference time (the corpus's "now")."""

from __future__ import annotations

import calendar
import re
from datetime import UTC, datetime, timedelta

from pydantic import BaseModel, Field

_MONTHS = {name.lower(): i for i, name in enumerate(calendar.month_name) if name} | {
    name.lower(): i for i, name in enumerate(calendar.month_abbr) if name
}
_MONTH_RE = "|".join(sorted(_MONTHS, key=len, reverse=True))
_DAY = r"(\d{1,2})(?:st|nd|rd|th)?"
_MONTH_DAY = re.compile(rf"\b(?:on\s+|in\s+)?({_MONTH_RE})\.?\s+{_DAY}\b", re.IGNORECASE)
_DAY_MONTH = re.compile(rf"\b(?:on\s+)?(?:the\s+)?{_DAY}\s+(?:of\s+)?({_MONTH_RE})\b", re.IGNORECASE)
_MONTH_ONLY = re.compile(rf"\b(?:in\s+|during\s+)?({_MONTH_RE})\b", re.IGNORECASE)
_ISO_DATE = re.compile(r"\b(?:on\s+)?(\d{4})-(\d{2})-(\d{2})\b")
_LAST_N_DAYS = re.compile(r"\b(?:in\s+)?(?:the\s+)?(?:last|past)\s+(\d{1,3})\s+days?\b", re.IGNORECASE)
_RELATIVE = re.compile(
    r"\b(?:in\s+|during\s+)?(yesterday|today|this\s+week|last\s+week|this\s+month|last\s+month)\b",
    re.IGNORECASE,
)
_BY_PERSON = re.compile(r"\b(?:by|from|authored\s+by|assigned\s+to)\s+([a-z][a-z.-]+)\b", re.IGNORECASE)


class QueryHints(BaseModel):
    text: str = Field(description="The query with the hint phrases removed (for full-text search)")
    actors: list[str] = Field(default_factory=list, description="Lower-case substrings of the actor")
    start: datetime | None = None
    end: datetime | None = Field(default=None, description="Exclusive end of the hinted period")


def _day_start(when: datetime) -> datetime:
    return when.replace(hour=0, minute=0, second=0, microsecond=0)


def _month_range(year: int, month: int) -> tuple[datetime, datetime]:
    start = datetime(year, month, 1, tzinfo=UTC)
    end = datetime(year + (month == 12), month % 12 + 1, 1, tzinfo=UTC)
    return start, end


def _year_for(month: int, now: datetime) -> int:
    """A month name without a year means its latest occurrence not after ``now``."""
    return now.year if month <= now.month else now.year - 1


def _relative_range(phrase: str, now: datetime) -> tuple[datetime, datetime]:
    today = _day_start(now)
    phrase = " ".join(phrase.lower().split())
    week_start = today - timedelta(days=today.weekday())
    if phrase == "today":
        return today, today + timedelta(days=1)
    if phrase == "yesterday":
        return today - timedelta(days=1), today
    if phrase == "this week":
        return week_start, week_start + timedelta(days=7)
    if phrase == "last week":
        return week_start - timedelta(days=7), week_start
    this_month = _month_range(now.year, now.month)
    if phrase == "this month":
        return this_month
    previous = this_month[0] - timedelta(days=1)
    return _month_range(previous.year, previous.month)


def _date_hint(query: str, now: datetime) -> tuple[str, datetime | None, datetime | None]:
    if m := _ISO_DATE.search(query):
        start = datetime(int(m[1]), int(m[2]), int(m[3]), tzinfo=UTC)
        return _cut(query, m), start, start + timedelta(days=1)
    if m := _LAST_N_DAYS.search(query):
        end = _day_start(now) + timedelta(days=1)
        return _cut(query, m), end - timedelta(days=int(m[1]) + 1), end
    if m := _RELATIVE.search(query):
        start, end = _relative_range(m[1], now)
        return _cut(query, m), start, end
    for pattern, month_group, day_group in ((_MONTH_DAY, 1, 2), (_DAY_MONTH, 2, 1)):
        if (m := pattern.search(query)) and 1 <= int(m[day_group]) <= 31:
            month = _MONTHS[m[month_group].lower()]
            try:
                start = datetime(_year_for(month, now), month, int(m[day_group]), tzinfo=UTC)
            except ValueError:
                continue
            return _cut(query, m), start, start + timedelta(days=1)
    if (m := _MONTH_ONLY.search(query)) and (m[1].lower() != "may" or m[0].lower().startswith(("in", "dur"))):
        month = _MONTHS[m[1].lower()]
        start, end = _month_range(_year_for(month, now), month)
        return _cut(query, m), start, end
    return query, None, None


def _cut(query: str, match: re.Match[str]) -> str:
    return f"{query[: match.start()]} {query[match.end() :]}"


def _actor_hints(query: str, people: dict[str, str]) -> tuple[str, list[str]]:
    """Known people are recognised by first name, last name or e-mail handle."""
    actors: list[str] = []
    aliases: dict[str, str] = {}
    for email, name in people.items():
        for alias in [email.split("@")[0], *name.lower().split()]:
            aliases.setdefault(alias.lower(), email)
    text = query
    for token in re.findall(r"[A-Za-z][A-Za-z.-]*(?:'s)?", query):
        base = token.lower().removesuffix("'s")
        if base in aliases:
            if aliases[base] not in actors:
                actors.append(aliases[base])
            text = re.sub(rf"\b(?:by\s+|from\s+)?{re.escape(token)}", " ", text, count=1, flags=re.I)
    if not actors and (m := _BY_PERSON.search(text)):
        actors.append(m[1].lower())
        text = _cut(text, m)
    return text, actors


def parse_hints(query: str, people: dict[str, str], now: datetime) -> QueryHints:
    text, start, end = _date_hint(query, now)
    text, actors = _actor_hints(text, people)
    return QueryHints(text=" ".join(text.split()), actors=actors, start=start, end=end)
