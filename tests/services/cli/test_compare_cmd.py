"""``yardstick compare --judge`` against a real coordinator (the judge on the bad-day provider): the
CLI waits for the background judging with a progress bar, prints win/tie/loss with the judge's
requests, and ``--no-judge-cache`` asks the model again where the default reuses every verdict."""

from __future__ import annotations

import httpx
import pytest

from tests.llm_provider import BadDayProvider, Reply, provider
from tests.services.cli.test_rescore_cmd import yardstick
from tests.services.coordinator.conftest import agent, workers
from tests.services.coordinator.harness import ScriptedAgent, synthetic_items
from tests.services.live_api import Api

__all__ = ["agent", "provider", "workers"]  # fixtures used here

ITEMS = 6


@pytest.mark.integration
@pytest.mark.timeout(180)
@pytest.mark.usefixtures("workers")
async def test_compare_judge_waits_with_progress_and_reuses_verdicts(
    api: Api, agent: ScriptedAgent, provider: BadDayProvider
) -> None:
    provider.fallback = Reply.json({"reason": "the first reads better", "better": "first"})
    async with httpx.AsyncClient(base_url=api.url, headers={"Authorization": f"Bearer {api.key}"}) as client:
        (await client.post("/datasets", json={"name": "syn", "kind": "drive_thru"})).raise_for_status()
        items = {"items": synthetic_items(ITEMS), "replace": True}
        (await client.post("/datasets/syn/items", json=items)).raise_for_status()
    for name in ("base", "cand"):
        run = await yardstick(api, "run", "-d", "syn", "-n", name)
        assert run.exit_code == 0, run.output

    judged = await yardstick(api, "compare", "base", "cand", "--judge", "Longer is better.")
    assert judged.exit_code == 0, judged.output
    assert "judging pairs" in judged.stderr and f"{ITEMS}/{ITEMS}" in judged.stderr
    assert "Pairwise judge" in judged.stdout and f"Ties: {ITEMS} (100.0%" in judged.stdout
    # The two runs answered alike: both orders of a pair read the same, the second is a cache hit.
    assert f"Judge requests: {ITEMS} (0 retries), {ITEMS} verdicts from the judge cache" in judged.stdout
    asked = len(provider.seen)
    assert asked == ITEMS

    again = await yardstick(api, "compare", "cand", "base", "--judge", "Longer is better.")
    assert again.exit_code == 0, again.output
    assert len(provider.seen) == asked and f"{2 * ITEMS} verdicts from the judge cache" in again.stdout

    fresh = await yardstick(
        api, "compare", "base", "cand", "--judge", "Longer is better.", "--no-judge-cache"
    )
    assert fresh.exit_code == 0, fresh.output
    assert len(provider.seen) == asked + 2 * ITEMS, "without the cache both orders of every pair are asked"
