"""Judged comparisons in the background, the judge on the bad-day provider (tests/llm_provider.py):
progress climbs to the total, retries and tokens are counted, the result is the same whichever run
is named first (a judge that always prefers the first position gives only ties), a second run asks
nothing (judge cache) unless the judge cache is turned off, and the compare page shows the
progress."""

from __future__ import annotations

import asyncio

import pytest

from services.evaluator.worker import EvalWorker
from tests.llm_provider import BadDayProvider, Reply, provider
from tests.services.coordinator.comparisons.test_pairwise_comparison import _runs, judged, judged_comparison
from tests.services.coordinator.harness import Coordinator, ScriptedAgent, ui_page

pytestmark = [pytest.mark.integration, pytest.mark.timeout(180)]
__all__ = ["provider"]

JUDGE = {"criteria": "Longer is better.", "judge_model": "bad-day-model"}
PAIRS = 12
FIRST = Reply.json({"reason": "the first reads better", "better": "first"}, delay_s=0.05)


def _ok_requests(server: BadDayProvider) -> int:
    return sum(status == 200 for status in server.statuses())


async def test_judging_runs_in_the_background_with_progress_retries_and_cost(
    coordinator: Coordinator, workers: list[EvalWorker], agent: ScriptedAgent, provider: BadDayProvider
) -> None:
    full, lossy = await _runs(coordinator, agent)
    provider.then(Reply.error(429, retry_after="0"), Reply.error(503), Reply(content="not json at all"))
    provider.fallback = FIRST
    final, progress = await judged_comparison(coordinator, full, lossy, JUDGE)

    done = [p["done"] for p in progress]
    assert done == sorted(done) and done[-1] == progress[-1]["total"] == PAIRS, progress
    pw = final["report"]["pairwise"]
    assert pw["pairs"] == PAIRS and pw["ties"]["count"] == pw["measured"]
    assert pw["inconsistent"] == pw["measured"], "a judge preferring a position gives only ties"
    assert pw["llm_requests"] == len(provider.seen) == progress[-1]["llm_requests"]
    assert pw["llm_retries"] >= 2, "the 429 and the 503 were retried and counted"
    spend = pw["spend"]
    assert spend["input_tokens"] == 11 * _ok_requests(provider)
    assert spend["output_tokens"] == 7 * _ok_requests(provider)

    asked = len(provider.seen)
    other, again = await judged_comparison(coordinator, lossy, full, JUDGE)
    assert len(provider.seen) == asked, "the other way round, every verdict came from the judge cache"
    opw = other["report"]["pairwise"]
    assert (opw["wins"], opw["ties"], opw["losses"]) == (pw["losses"], pw["ties"], pw["wins"])
    assert opw["llm_requests"] == 0 and opw["judge_cache_hits"] == again[-1]["judge_cache_hits"] > 0
    assert opw["spend"] is None, "nothing spent on cached verdicts"

    uncached, _ = await judged_comparison(coordinator, full, lossy, {**JUDGE, "judge_cache": False})
    assert len(provider.seen) == asked + 2 * PAIRS, "--no-judge-cache asks the model for every pair"
    assert uncached["report"]["pairwise"]["judge_cache_hits"] == 0


async def test_the_compare_page_follows_the_judging(
    coordinator: Coordinator, workers: list[EvalWorker], agent: ScriptedAgent, provider: BadDayProvider
) -> None:
    full, lossy = await _runs(coordinator, agent)
    release = asyncio.Event()
    provider.fallback = FIRST
    provider.hold = release  # the judge answers only once the page has shown the judging
    body = {"baseline_id": full, "candidate_id": lossy, "judge": JUDGE}
    accepted = (await coordinator.client.post("/comparisons", json=body)).json()
    page = await ui_page(coordinator, f"/ui/compare?baseline={full}&candidate={lossy}")
    assert "data-judging>" in page and "pairs judged" in page and 'hx-trigger="every 2s"' in page
    release.set()
    assert (await judged(coordinator, accepted["id"]))[-1]["status"] == "done"
    page = await ui_page(coordinator, f"/ui/compare?baseline={full}&candidate={lossy}")
    assert "data-pairwise" in page and "data-judging>" not in page and "every 2s" not in page


async def test_judging_interrupted_by_a_restart_is_resumed(
    coordinator: Coordinator, workers: list[EvalWorker], agent: ScriptedAgent, provider: BadDayProvider
) -> None:
    full, lossy = await _runs(coordinator, agent)
    release = asyncio.Event()
    provider.fallback = FIRST
    provider.hold = release  # nothing is judged before the restart
    body = {"baseline_id": full, "candidate_id": lossy, "judge": JUDGE}
    accepted = (await coordinator.client.post("/comparisons", json=body)).json()
    await coordinator.restart()
    release.set()
    progress = await judged(coordinator, accepted["id"])
    assert progress[-1]["status"] == "done" and progress[-1]["done"] == PAIRS
    final = (await coordinator.client.get(f"/comparisons/{accepted['id']}")).json()
    assert final["report"]["pairwise"]["pairs"] == PAIRS
