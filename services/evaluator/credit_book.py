"""The credit grants of every running experiment, as the coordinator last wrote them in the KV bucket
``Topology.eval_credits_bucket``: watched (an ordered push consumer, acks ``none``: a KV watch is a
view, not work) and kept in memory, so reading this worker's credits costs no round trip. A worker
started later reads the current grants when its watch starts (the watch delivers the last value of
every key first). A deleted key (the experiment ended) means "no grant": its tasks run as they come.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from nats.js import JetStreamContext
from pydantic import ValidationError

from shared.contracts.credits import CreditGrant
from shared.messaging.kv_view import KvView

log = logging.getLogger(__name__)

GrantListener = Callable[[str], None]


class CreditBook:
    """Experiment id -> its latest :class:`CreditGrant`."""

    def __init__(self, js: JetStreamContext, bucket: str, on_change: GrantListener) -> None:
        self._on_change = on_change
        self._grants: dict[str, CreditGrant] = {}
        self._view = KvView(js, bucket, ">", self.apply, name="credit book")

    def grant_of(self, experiment_id: str) -> CreditGrant | None:
        return self._grants.get(experiment_id)

    @property
    def empty(self) -> bool:
        return not self._grants

    async def start(self) -> None:
        await self._view.start()

    async def stop(self) -> None:
        await self._view.stop()

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
