"""The credit grants of every running experiment, as the coordinator last wrote them in the KV bucket
``Topology.eval_credits_bucket``: watched (an ordered push consumer, acks ``none``: a KV watch is a
view, not work) and kept in memory, so reading this worker's credits costs no round trip. A worker
started later reads the current grants when its watch starts (the watch delivers the last value of
every key first). A deleted key (the experiment ended) means "no grant": its tasks run as they come.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable

from nats.js import JetStreamContext
from nats.js.kv import KeyValue
from pydantic import ValidationError

from shared.contracts.credits import CreditGrant

log = logging.getLogger(__name__)

GrantListener = Callable[[str], None]


class CreditBook:
    """Experiment id -> its latest :class:`CreditGrant`."""

    def __init__(self, js: JetStreamContext, bucket: str, on_change: GrantListener) -> None:
        self._js = js
        self._bucket = bucket
        self._on_change = on_change
        self._grants: dict[str, CreditGrant] = {}
        self._watcher: KeyValue.KeyWatcher | None = None
        self._watch_task: asyncio.Task[None] | None = None

    def grant_of(self, experiment_id: str) -> CreditGrant | None:
        return self._grants.get(experiment_id)

    @property
    def empty(self) -> bool:
        return not self._grants

    async def start(self) -> None:
        kv = await self._js.key_value(self._bucket)
        self._watcher = await kv.watch(">")
        self._watch_task = asyncio.create_task(self._follow(self._watcher), name="credit-book-watch")

    async def stop(self) -> None:
        if self._watcher is not None:
            with contextlib.suppress(Exception):
                await self._watcher.stop()  # type: ignore[no-untyped-call]
        if self._watch_task is not None:
            self._watch_task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._watch_task

    async def _follow(self, watcher: KeyValue.KeyWatcher) -> None:
        try:
            async for entry in watcher:
                if entry is not None:
                    self.apply(entry.key, entry.value)
        except asyncio.CancelledError:
            raise
        except Exception:  # grants are frozen from now on; the worker keeps running on them
            log.exception("the credit book's watch stopped")

    def apply(self, key: str, value: bytes | None) -> None:
        """One entry of the watch: a grant written, or (no value) deleted or expired."""
        if not value:
            if self._grants.pop(key, None) is not None:
                self._on_change(key)
            return
        try:
            grant = CreditGrant.model_validate_json(value)
        except ValidationError:
            log.warning("ignoring a malformed credit grant under %s", key)
            return
        self._grants[key] = grant
        self._on_change(key)
