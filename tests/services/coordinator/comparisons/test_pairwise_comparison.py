"""``POST /comparisons`` with ``judge: {...}`` (llm_pairwise) on the real NATS + Postgres, judged in
the background (202, then GET until done): the same result whichever experiment is named first,
and a position-biased judge gives only ties."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest

from services.evaluator.worker import EvalWorker
from shared.evaluators.judge_model import set_judge_factory
from tests.services.coordinator.conftest import experiment_body
from tests.services.coordinator.harness import Coordinator, ScriptedAgent, synthetic_items, ui_page
from tests.shared.evaluators.test_pairwise import FakeJudge

pytestmark = [pytest.mark.integration, pytest.mark.timeout(120)]

JUDGE = {"criteria": "Longer is better.", "judge_provider": "openai", "judge_model": "fake"}


@pytest.fixture
def fair(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeJudge]:
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    fake = FakeJudge("longer")
    previous = set_judge_factory(lambda config: fake)
    yield fake
    set_judge_factory(previous)


async def _runs(coordinator: Coordinator, agent: ScriptedAgent) -> tuple[str, str]:
    await coordinator.push("syn", synthetic_items(12))
    ids = []
    for name, drop in (("full", 0.0), ("lossy", 0.5)):
        agent.drop_fraction = drop  # the lossy agent returns an empty order for some items
        accepted = await coordinator.client.post("/experiments", json=experiment_body(name=name))
        done = await coordinator.finished(accepted.json()["id"])
        assert done["status"] == "completed"
        ids.append(done["id"])
    return ids[0], ids[1]


async def judged(coordinator: Coordinator, comparison_id: str, timeout: float = 60.0) -> list[dict[str, Any]]:
    """Every ``judging`` the API showed until the judging was over (the last one: done or failed)."""
    seen: list[dict[str, Any]] = []
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not seen or seen[-1]["status"] == "judging":
        assert loop.time() < deadline, f"still judging after {timeout} s: {seen[-1]}"
        if seen:
            await asyncio.sleep(0.05)  # the API is the only observable of the background judging
        response = await coordinator.client.get(f"/comparisons/{comparison_id}")
        seen.append(response.json()["judging"])
    return seen


async def judged_comparison(
    coordinator: Coordinator, baseline: str, candidate: str, judge: dict[str, Any]
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """POST a judged comparison (202 at once, judging), wait for the judging; the finished
    comparison and every progress the API showed."""
    body = {"baseline_id": baseline, "candidate_id": candidate, "judge": judge}
    response = await coordinator.client.post("/comparisons", json=body)
    assert response.status_code == 202, response.text
    accepted = response.json()
    assert accepted["judging"]["status"] == "judging" and accepted["report"]["pairwise"] is None
    assert accepted["report"]["metrics"], "the statistics are there at once"
    progress = await judged(coordinator, accepted["id"])
    assert progress[-1]["status"] == "done", progress[-1]
    final = (await coordinator.client.get(f"/comparisons/{accepted['id']}")).json()
    return final, progress


async def _pairwise(coordinator: Coordinator, baseline: str, candidate: str, **judge: Any) -> dict[str, Any]:
    final, _ = await judged_comparison(coordinator, baseline, candidate, {**JUDGE, **judge})
    result: dict[str, Any] = final["report"]["pairwise"]
    result["comparison_id"] = final["id"]
    return result


async def test_the_same_result_whichever_run_is_named_first(
    coordinator: Coordinator, workers: list[EvalWorker], agent: ScriptedAgent, fair: FakeJudge
) -> None:
    full, lossy = await _runs(coordinator, agent)
    one = await _pairwise(coordinator, full, lossy)
    other = await _pairwise(coordinator, lossy, full)
    assert one["pairs"] == other["pairs"] == 12 and one["measured"] == 12
    assert one["losses"]["count"] > 0, "the lossy candidate loses where it dropped the order"
    assert one["wins"]["count"] == 0 and one["ties"]["count"] == 12 - one["losses"]["count"]
    assert (one["wins"], one["ties"], one["losses"]) == (other["losses"], other["ties"], other["wins"])
    assert {j["item_id"]: j["outcome"] for j in one["judgements"]} == {
        j["item_id"]: {"baseline": "candidate", "candidate": "baseline"}.get(j["outcome"], j["outcome"])
        for j in other["judgements"]
    }
    assert one["inconsistent"] == other["inconsistent"] == 0
    # Both orders of a differing pair are asked once; a pair of identical outputs is one prompt
    # (both orders read the same); the comparison the other way round comes from the judge cache.
    assert len(fair.prompts) == 2 * one["losses"]["count"] + one["ties"]["count"]

    report = await coordinator.client.get(f"/comparisons/{one['comparison_id']}", params={"format": "md"})
    assert "## Pairwise judge" in report.text and "both orders" in report.text
    page = await ui_page(coordinator, f"/ui/compare?baseline={lossy}&candidate={full}")
    assert "data-pairwise" in page and "Candidate better" in page


async def test_a_position_biased_judge_gives_only_ties(
    coordinator: Coordinator, workers: list[EvalWorker], agent: ScriptedAgent, fair: FakeJudge
) -> None:
    full, lossy = await _runs(coordinator, agent)
    fair.mode = "first"
    result = await _pairwise(coordinator, full, lossy)
    assert result["ties"]["count"] == result["measured"] == 12
    assert result["inconsistent"] == 12 and result["wins"]["count"] == result["losses"]["count"] == 0
