"""Worker-held credits, coordinator side: split each running experiment's concurrency over the live
eval workers (``credit_split``) and keep the split in the KV bucket ``Topology.eval_credits_bucket``,
one :class:`~shared.contracts.credits.CreditGrant` per experiment, which every worker watches.

The fleet is asked on every sync (``fleet_capacity``: each worker answers with its slots and whether
it drains). A worker that no longer answers (killed) or drains gets nothing on the next sync and its
share goes to the others: that is how credits are taken back. The tasks it held are redelivered by
JetStream after ``ack_wait`` as without credits (results are idempotent).

A grant is rewritten only when it changes (or before the bucket's TTL could expire it) and deleted
when its experiment stops running. ``read_ahead_for`` tells the dispatcher how many tasks beyond C it
may keep published for an experiment: none until its grant was written in an earlier sync (so the
workers have had a round to see it), none when there is no grant (no worker answered, or C is below
the number of workers): then the dispatcher keeps C published and the workers run what they fetch,
exactly as without credits.
"""

from __future__ import annotations

import contextlib
import logging
import time
from collections.abc import Mapping

import nats.errors
from nats.aio.client import Client as NatsClient
from nats.js.errors import NoKeysError
from nats.js.kv import KeyValue

from services.coordinator.experiments.dispatch.capacity import fleet_capacity
from services.coordinator.experiments.dispatch.credit_split import split_credits
from shared.contracts.credits import CreditGrant
from shared.messaging.streams import EVAL_CREDITS_TTL_S
from shared.metrics import CREDITS_GRANTED
from yardstick.api.topology import Topology

log = logging.getLogger(__name__)

REWRITE_AFTER_S = EVAL_CREDITS_TTL_S / 2


class CreditGrants:
    """The grants of every running experiment, as last written."""

    def __init__(self, nc: NatsClient, topology: Topology, read_ahead: int) -> None:
        self._nc = nc
        self._topology = topology
        self._read_ahead = read_ahead
        self._kv: KeyValue | None = None
        self._written: dict[str, CreditGrant] = {}
        self._seen: set[str] = set()
        """Experiments whose current grant was already written in an earlier sync."""
        self._stale: set[str] = set()
        """Keys found in the bucket at start (a previous coordinator's), deleted unless running."""

    def read_ahead_for(self, experiment_id: str, concurrency: int) -> int:
        """Tasks to keep published beyond ``concurrency`` (0 without a grant the workers have seen)."""
        return min(concurrency, self._read_ahead) if experiment_id in self._seen else 0

    async def sync(self, concurrency: Mapping[str, int]) -> None:
        """Make the bucket hold one grant per experiment of ``concurrency`` (id -> C), and no other."""
        kv = await self._bucket()
        fleet = await fleet_capacity(self._nc, self._topology)
        seen: set[str] = set()
        for experiment_id, c in concurrency.items():
            grants = split_credits(c, fleet)
            previous = self._written.get(experiment_id)
            if grants is None:
                await self._delete(kv, experiment_id)
                continue
            if previous is not None and _unchanged(previous, c, grants):
                seen.add(experiment_id)
                continue
            grant = CreditGrant(
                experiment_id=experiment_id,
                concurrency=c,
                grants=grants,
                revision=1 if previous is None else previous.revision + 1,
                updated_at=time.time(),
            )
            await kv.put(experiment_id, grant.model_dump_json().encode())
            self._written[experiment_id] = grant
            if previous is not None:
                seen.add(experiment_id)
        for experiment_id in (set(self._written) | self._stale) - set(concurrency):
            await self._delete(kv, experiment_id)
        self._stale.clear()
        self._seen = seen
        self._export(fleet_ids={w.worker_id for w in fleet})

    async def forget(self, experiment_id: str) -> None:
        """The experiment stopped (cancelled, finished): its grant goes now, not at the next sync."""
        self._seen.discard(experiment_id)
        if self._kv is not None and experiment_id in self._written:
            with contextlib.suppress(nats.errors.Error):
                await self._delete(self._kv, experiment_id)

    async def _bucket(self) -> KeyValue:
        if self._kv is None:
            kv = await self._nc.jetstream().key_value(self._topology.eval_credits_bucket)
            with contextlib.suppress(NoKeysError):
                self._stale = set(await kv.keys())
            self._kv = kv
        return self._kv

    async def _delete(self, kv: KeyValue, experiment_id: str) -> None:
        self._seen.discard(experiment_id)
        if self._written.pop(experiment_id, None) is not None or experiment_id in self._stale:
            await kv.delete(experiment_id)

    def _export(self, fleet_ids: set[str]) -> None:
        held = dict.fromkeys(fleet_ids, 0)
        for grant in self._written.values():
            for worker, n in grant.grants.items():
                held[worker] = held.get(worker, 0) + n
        CREDITS_GRANTED.clear()
        for worker, n in held.items():
            CREDITS_GRANTED.labels(worker).set(n)


def _unchanged(previous: CreditGrant, concurrency: int, grants: dict[str, int]) -> bool:
    """The written grant still holds (and is not about to expire)."""
    fresh = time.time() - previous.updated_at < REWRITE_AFTER_S
    return fresh and previous.grants == grants and previous.concurrency == concurrency
