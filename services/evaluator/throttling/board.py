"""The one place where eval workers share what a provider told them: a JetStream KV bucket
(``Topology.target_throttle_bucket``, declared with the streams) with two keys per target identity
(``throttle_key``, a hash of the endpoint, so every experiment calling it shares them):

- ``pause.<key>`` — a :class:`PauseNotice`: the target answered 429 (or 503 with ``Retry-After``);
  no worker starts a call to it before ``until`` (wall-clock epoch seconds). Written by the worker
  that was throttled, only when it moves the pause later; every worker watches the bucket (an
  ordered push consumer, acks ``none``: a KV watch is a view, not work) and keeps the latest pause
  of every target in memory, so checking one costs no round trip. A worker started later reads the
  current pauses when its watch starts (the watch delivers the last value of every key first).
- ``rate.<key>`` — a :class:`RateSchedule` for a target with a ``rate_limit``: the earliest start of
  the next call. A worker reserves starts by compare-and-set (``update`` with the revision it read;
  on a conflict it waits a random moment and reads again), so starts are spaced ``interval_s`` apart
  across all workers and experiments (GCRA). Within a worker one reservation per target is in flight
  at a time and it takes a start for every call then waiting, so conflicts only happen between
  workers and cost one round trip per batch, not per call.
- ``tokens.<key>`` — a :class:`RateSchedule` for a target with ``tokens_per_minute``: a post-paid
  token budget. No call starts before its ``next_start`` (the target is "in token debt" until then);
  a call that reported T tokens moves it T * 60 / tokens_per_minute seconds past max(now, it), by
  the same compare-and-set. Tokens are known only after a call, so the calls already in flight when
  the budget runs out may overrun it by what they spend; from then on starts wait.

Keys expire an hour after their last write (the bucket's TTL). If NATS is unreachable a pause is
still kept in this worker's memory and a rate reservation or token debt falls back to this worker
alone.
"""

from __future__ import annotations

import asyncio
import logging
import random
import time
from collections.abc import Callable

import nats.errors
from nats.js import JetStreamContext
from nats.js.errors import KeyWrongLastSequenceError, NotFoundError
from nats.js.kv import KeyValue
from pydantic import BaseModel, Field, ValidationError

from shared.messaging.kv_view import KvView

log = logging.getLogger(__name__)

SCHEMA_VERSION = 1
RESERVE_ATTEMPTS = 50
PAUSE_EXTENSION_MIN_S = 0.25
"""A pause is moved later only by more than this: the 429s of one burst (calls already in flight
when the first came back) each ask for "1 s from now"; following every one of them would stretch
each pause by the burst's length and write the bucket once per 429."""
CONFLICT_PAUSE_S = 0.002
"""Up to this long (random) before reading a schedule again after losing a compare-and-set."""


class PauseNotice(BaseModel):
    """``pause.<key>``: the target asked to be left alone until ``until``."""

    schema_version: int = SCHEMA_VERSION
    until: float = Field(description="Wall-clock epoch seconds before which no call starts")
    worker_id: str = Field(description="The worker that was throttled")
    status: int = Field(description="The HTTP status that asked for the pause (429 or 503)")


class RateSchedule(BaseModel):
    """``rate.<key>``: when the next call to a rate-limited target may start."""

    schema_version: int = SCHEMA_VERSION
    next_start: float = Field(description="Wall-clock epoch seconds")


PauseListener = Callable[[str, PauseNotice], None]


class ThrottleBoard:
    """Pauses and rate schedules of every target, shared through the KV bucket ``bucket``."""

    def __init__(self, js: JetStreamContext, bucket: str, worker_id: str) -> None:
        self._js = js
        self._bucket = bucket
        self._worker_id = worker_id
        self._kv: KeyValue | None = None
        self._view = KvView(js, bucket, "pause.>", self._read, name="throttle board")
        self._paused_until: dict[str, float] = {}
        self._local_next: dict[str, float] = {}
        self._waiting: dict[str, list[asyncio.Future[float]]] = {}
        self._reservers: dict[str, asyncio.Task[None]] = {}
        self._listeners: list[PauseListener] = []

    def on_pause(self, listener: PauseListener) -> None:
        """Call ``listener(key, notice)`` when another worker pauses a target."""
        self._listeners.append(listener)

    async def start(self) -> None:
        self._kv = await self._view.start()

    async def stop(self) -> None:
        await self._view.stop()

    def _read(self, key: str, value: bytes) -> None:
        """One entry of the watch; a delete or an expiry (no value) changes nothing."""
        if not value or not key.startswith("pause."):
            return
        try:
            notice = PauseNotice.model_validate_json(value)
        except ValidationError:
            log.warning("ignoring a malformed pause notice under %s", key)
            return
        key = key.removeprefix("pause.")
        if notice.until > self._paused_until.get(key, 0.0):
            self._paused_until[key] = notice.until
        if notice.worker_id != self._worker_id:
            for listener in self._listeners:
                listener(key, notice)

    def paused_for(self, key: str, now: float | None = None) -> float:
        """Seconds left of the target's pause (0 when it may be called)."""
        return max(0.0, self._paused_until.get(key, 0.0) - (time.time() if now is None else now))

    async def pause(self, key: str, seconds: float, status: int) -> None:
        """Nobody calls the target for ``seconds`` from now (unless the current pause already lasts
        nearly as long: see ``PAUSE_EXTENSION_MIN_S``)."""
        until = time.time() + seconds
        if until <= self._paused_until.get(key, 0.0) + PAUSE_EXTENSION_MIN_S:
            return
        self._paused_until[key] = until
        if self._kv is None:
            return
        notice = PauseNotice(until=until, worker_id=self._worker_id, status=status)
        try:
            await self._kv.put(f"pause.{key}", notice.model_dump_json().encode())
        except nats.errors.Error as exc:
            log.warning("could not share a pause of target %s (kept in this worker): %s", key, exc)

    async def reserve_start(self, key: str, interval_s: float) -> float:
        """The epoch second at which this call may start, ``interval_s`` after the one before it
        across all workers."""
        start: asyncio.Future[float] = asyncio.get_running_loop().create_future()
        self._waiting.setdefault(key, []).append(start)
        if key not in self._reservers:
            self._reservers[key] = asyncio.create_task(self._reserve_waiting(key, interval_s))
        return await start

    async def _reserve_waiting(self, key: str, interval_s: float) -> None:
        """Reserve starts for every call waiting on ``key``, batch after batch, until none waits."""
        try:
            while batch := self._waiting.pop(key, []):
                try:
                    first = await self._reserve_shared(key, interval_s, len(batch))
                except Exception as exc:  # NATS away, a conflict storm, a malformed schedule
                    log.warning("rate schedule of %s unreachable, limiting this worker only: %s", key, exc)
                    first = max(time.time(), self._local_next.get(key, 0.0))
                    self._local_next[key] = first + interval_s * len(batch)
                for index, waiter in enumerate(batch):
                    if not waiter.done():
                        waiter.set_result(first + index * interval_s)
        finally:
            del self._reservers[key]

    async def _reserve_shared(self, key: str, interval_s: float, count: int) -> float:
        """Reserve ``count`` consecutive starts; returns the first."""
        return await self._advance_shared(f"rate.{key}", interval_s * count)

    async def token_debt_until(self, key: str) -> float:
        """The epoch second before which no call to the target starts: the end of its token debt
        (0 when it has none, or this worker's own debt if the bucket cannot be read)."""
        local = self._local_next.get(f"tokens.{key}", 0.0)
        if self._kv is None:
            return local
        try:
            entry = await self._kv.get(f"tokens.{key}")
        except NotFoundError:
            return local
        except Exception as exc:  # NATS away, a malformed schedule
            log.warning("token budget of %s unreachable, limiting this worker only: %s", key, exc)
            return local
        if not entry.value:
            return local
        try:
            return RateSchedule.model_validate_json(entry.value).next_start
        except ValidationError:
            log.warning("ignoring a malformed token schedule of %s", key)
            return local

    async def spend_tokens(self, key: str, tokens: int, tokens_per_minute: int) -> None:
        """Charge ``tokens`` a call reported to the target's shared token budget."""
        if tokens <= 0:
            return
        name = f"tokens.{key}"
        debt_s = tokens * 60.0 / tokens_per_minute
        try:
            await self._advance_shared(name, debt_s)
        except Exception as exc:  # NATS away, a conflict storm, a malformed schedule
            log.warning("token budget of %s unreachable, limiting this worker only: %s", key, exc)
            self._local_next[name] = max(time.time(), self._local_next.get(name, 0.0)) + debt_s

    async def _advance_shared(self, name: str, advance_s: float) -> float:
        """Move the schedule ``name`` to ``advance_s`` past max(now, its next start), by
        compare-and-set; returns that max (the reserved start)."""
        if self._kv is None:
            raise RuntimeError("the throttle board is not started")
        for _ in range(RESERVE_ATTEMPTS):
            revision = 0
            next_start = 0.0
            try:
                entry = await self._kv.get(name)
                revision = entry.revision or 0
                if entry.value:
                    next_start = RateSchedule.model_validate_json(entry.value).next_start
            except NotFoundError:
                pass
            start = max(time.time(), next_start)
            value = RateSchedule(next_start=start + advance_s).model_dump_json().encode()
            try:
                if revision:
                    await self._kv.update(name, value, last=revision)
                else:
                    await self._kv.create(name, value)
            except KeyWrongLastSequenceError:
                await asyncio.sleep(random.uniform(0, CONFLICT_PAUSE_S))  # another worker won: read again
                continue
            return start
        raise RuntimeError(f"{RESERVE_ATTEMPTS} conflicting reservations in a row")
