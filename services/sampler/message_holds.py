"""Which ``traffic.spans`` messages may be acknowledged: those whose every span is in a stored trace.

A message's spans wait in the assembler until their trace is handed on; the message is held
(unacknowledged) until every trace part it contributed to has been stored. A part handed on while
its trace stays open (its span bound was reached in the middle of a message) keeps that message
held by the open part as well. So a sampler killed at any moment leaves every span either stored or
in a message JetStream redelivers (and storing is idempotent): nothing lost, nothing doubled.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable
from typing import Generic, TypeVar

M = TypeVar("M", bound=Hashable)
Key = tuple[str, str]  # (project, trace id)


class MessageHolds(Generic[M]):
    def __init__(self) -> None:
        self._by_key: dict[Key, set[M]] = {}
        self._holds: dict[M, int] = {}

    def __len__(self) -> int:
        """Messages held."""
        return len(self._holds)

    def held(self) -> list[M]:
        return list(self._holds)

    def hold(self, message: M, keys: Iterable[Key]) -> bool:
        """``message`` put spans into the open parts ``keys``; False when it touched none."""
        touched = False
        for key in keys:
            touched = True
            waiting = self._by_key.setdefault(key, set())
            if message not in waiting:
                waiting.add(message)
                self._holds[message] = self._holds.get(message, 0) + 1
        return touched

    def hand_on(self, key: Key, still_open: bool) -> set[M]:
        """The part ``key`` was handed on: the messages it holds (to :meth:`release` once it is
        stored). When the trace is ``still_open`` (a new part started), they stay held by it too."""
        messages = self._by_key.pop(key, set())
        if still_open and messages:
            self._by_key[key] = set(messages)
            for message in messages:
                self._holds[message] += 1
        return messages

    def release(self, messages: Iterable[M], ack: Callable[[M], None]) -> None:
        """A part holding ``messages`` was stored: ``ack`` each message no part holds any more."""
        for message in messages:
            count = self._holds.get(message)
            if count is None:
                continue  # given back meanwhile
            if count <= 1:
                del self._holds[message]
                ack(message)
            else:
                self._holds[message] = count - 1

    def drop(self, messages: Iterable[M]) -> None:
        """Forget ``messages`` (given back for redelivery): no part will acknowledge them."""
        gone = set(messages)
        for message in gone:
            self._holds.pop(message, None)
        for waiting in self._by_key.values():
            waiting.difference_update(gone)
