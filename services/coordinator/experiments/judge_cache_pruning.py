"""The coordinator deletes expired judge verdicts (older than ``JUDGE_CACHE_TTL_DAYS``) at start and
then every ``judge_cache_prune_interval_s``, in batches (see :mod:`shared.db.judge_verdicts`)."""

from __future__ import annotations

import asyncio
import logging

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from shared.db.judge_verdicts import configured_max_age, prune_expired

log = logging.getLogger(__name__)


async def prune_judge_cache_forever(sessions: async_sessionmaker[AsyncSession], interval_s: float) -> None:
    while True:
        try:
            deleted = await prune_expired(sessions, configured_max_age())
            if deleted:
                log.info("expired judge verdicts pruned", extra={"deleted": deleted})
        except Exception:  # the database may be away for a moment: try again next time
            log.warning("pruning the judge cache failed", exc_info=True)
        await asyncio.sleep(interval_s)  # a periodic job, not a wait for an event
