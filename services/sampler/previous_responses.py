"""The previous turn's response per conversation: a small in-memory LRU, falling back to Postgres."""

from __future__ import annotations

from collections import OrderedDict

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from shared.contracts.projects import DEFAULT_PROJECT
from shared.db.models import OnlineSample

DEFAULT_CAPACITY = 10_000


class PreviousResponses:
    def __init__(self, capacity: int = DEFAULT_CAPACITY) -> None:
        self._capacity = capacity
        self._entries: OrderedDict[tuple[str, str, int], str] = OrderedDict()

    def remember(
        self, conversation_id: str, turn_index: int, response: str, project: str = DEFAULT_PROJECT
    ) -> None:
        key = (project, conversation_id, turn_index)
        self._entries[key] = response
        self._entries.move_to_end(key)
        while len(self._entries) > self._capacity:
            self._entries.popitem(last=False)

    async def lookup(
        self, session: AsyncSession, conversation_id: str, turn_index: int, project: str = DEFAULT_PROJECT
    ) -> str | None:
        """The response of turn ``turn_index - 1`` in ``project``; None for turn 0 or when it was
        never seen."""
        if turn_index == 0:
            return None
        key = (project, conversation_id, turn_index - 1)
        if key in self._entries:
            self._entries.move_to_end(key)
            return self._entries[key]
        stmt = select(OnlineSample.turn).where(
            OnlineSample.project_id == project,
            OnlineSample.conversation_id == conversation_id,
            OnlineSample.turn_index == turn_index - 1,
        )
        stored = (await session.execute(stmt)).scalar_one_or_none()
        if stored is None:
            return None
        response = stored.get("response")
        return response if isinstance(response, str) else None
