"""The per-conversation advisory lock on the real Postgres: two lock holders stand for two replicas."""

from __future__ import annotations

import asyncio

import pytest

from services.agent.conversation_lock import (
    AgentOverloadedError,
    ConversationBusyError,
    conversation_locks,
    lock_key,
)

pytestmark = pytest.mark.timeout(60)


@pytest.mark.unit
def test_keys_are_stable_signed_64_bit_and_distinct() -> None:
    assert lock_key("abc") == lock_key("abc") != lock_key("abd")
    assert all(-(2**63) <= lock_key(str(i)) < 2**63 for i in range(1000))


@pytest.mark.integration
async def test_a_second_replica_waits_then_is_refused_with_a_clear_error(database_url: str) -> None:
    async with (
        conversation_locks(database_url, wait_s=0.3, max_size=2) as one,
        conversation_locks(database_url, wait_s=0.3, max_size=2) as two,
    ):
        async with one.hold("conv-1"):
            with pytest.raises(ConversationBusyError, match="'conv-1' is still answering"):
                async with two.hold("conv-1"):
                    pytest.fail("the lock was granted twice")
            async with two.hold("conv-2"):  # other conversations are not held up
                pass
        async with two.hold("conv-1"):  # released when the first turn ended
            pass


@pytest.mark.integration
async def test_a_turn_that_raises_releases_its_lock(database_url: str) -> None:
    async with (
        conversation_locks(database_url, wait_s=0.3, max_size=1) as one,
        conversation_locks(database_url, wait_s=0.3, max_size=1) as two,
    ):
        with pytest.raises(RuntimeError, match="model failed"):
            async with one.hold("conv-1"):
                raise RuntimeError("model failed")
        async with two.hold("conv-1"):
            pass


@pytest.mark.integration
async def test_a_full_pool_is_reported_as_overload(database_url: str) -> None:
    async with conversation_locks(database_url, wait_s=0.3, max_size=1) as locks:
        held = asyncio.Event()
        release = asyncio.Event()

        async def long_turn() -> None:
            async with locks.hold("conv-1"):
                held.set()
                await release.wait()

        task = asyncio.create_task(long_turn())
        await held.wait()
        with pytest.raises(AgentOverloadedError, match="already serving 1 turns"):
            async with locks.hold("conv-2"):
                pass
        release.set()
        await task
