"""A JetStream KV bucket followed in memory: the watch that the eval workers' credit book and
throttle board share.

The watch is an ordered push consumer (acks ``none``: a KV watch is a view, not work). It delivers
the last value of every key first, so a process started later sees the current state, then every
write, delete and expiry as it happens. Each entry goes to ``on_entry(key, value)``; a delete or an
expiry comes as an empty value. If the watch breaks, what was read stays: the error is logged once
and the owner keeps running on it.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable

from nats.js import JetStreamContext
from nats.js.kv import KeyValue

log = logging.getLogger(__name__)

EntryListener = Callable[[str, bytes], None]


class KvView:
    """Follow the keys ``keys`` (a subject filter: ``>`` for all) of the bucket ``bucket``."""

    def __init__(
        self, js: JetStreamContext, bucket: str, keys: str, on_entry: EntryListener, *, name: str
    ) -> None:
        self._js = js
        self._bucket = bucket
        self._keys = keys
        self._on_entry = on_entry
        self._name = name
        self._watcher: KeyValue.KeyWatcher | None = None
        self._task: asyncio.Task[None] | None = None

    async def start(self) -> KeyValue:
        """Start the watch; returns the bucket (for the owner's own writes)."""
        kv = await self._js.key_value(self._bucket)
        self._watcher = await kv.watch(self._keys)
        self._task = asyncio.create_task(self._follow(self._watcher), name=f"{self._name}-watch")
        return kv

    async def stop(self) -> None:
        if self._watcher is not None:
            with contextlib.suppress(Exception):
                await self._watcher.stop()  # type: ignore[no-untyped-call]
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task

    async def _follow(self, watcher: KeyValue.KeyWatcher) -> None:
        try:
            async for entry in watcher:
                if entry is not None:  # None: the end of the history delivered at the start
                    self._on_entry(entry.key, entry.value or b"")
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("the %s's watch of %s stopped; keeping what it read", self._name, self._bucket)
