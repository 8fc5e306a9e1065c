"""How an experiment's concurrency C is split over the live eval workers, in proportion to their
task slots (pure: no I/O).

Every worker that can take work (not draining, at least one slot) gets at least one credit and at
most its slots; a draining worker or one with no slot gets 0. When C is below the number of such
workers there is no split that leaves none of them idle-but-fetching, so there is no grant at all
(the workers then run what they fetch, as without credits)."""

from __future__ import annotations

import math
from collections.abc import Sequence

from shared.contracts.capacity import WorkerCapacity


def split_credits(concurrency: int, fleet: Sequence[WorkerCapacity]) -> dict[str, int] | None:
    """Worker id -> credits (summing to ``min(concurrency, slots of the able workers)``), or None."""
    able = {w.worker_id: w.concurrency for w in fleet if not w.draining and w.concurrency > 0}
    if not able or concurrency < len(able):
        return None
    grants = {w.worker_id: 0 for w in fleet}
    slots = sum(able.values())
    if concurrency >= slots:
        return grants | able
    # One credit each, then the rest in proportion to the slots left (largest remainder): a share
    # never exceeds a worker's slots because the rest (C - n) is below the slots left (S - n).
    rest, spare = concurrency - len(able), slots - len(able)
    shares = {w: rest * (s - 1) / spare for w, s in able.items()}
    floors = {w: math.floor(share) for w, share in shares.items()}
    by_remainder = sorted(able, key=lambda w: (floors[w] - shares[w], w))
    for worker in by_remainder[: rest - sum(floors.values())]:
        floors[worker] += 1
    return grants | {w: 1 + floors[w] for w in able}
