"""The web UI in headless Chromium against a real coordinator (real NATS, PostgreSQL, eval
workers): list -> experiment -> item -> compare -> datasets -> online, each page's numbers equal to
the API's, no console error and no failed request anywhere."""

from __future__ import annotations

import asyncio
import re
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import pytest
from playwright.async_api import Browser, expect
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from services.coordinator.ui.views import formatting
from shared.evaluators.registry import RegisteredEvaluator
from tests.evaluator_registry import add_for_test
from tests.llm_provider import BadDayProvider, Reply, provider
from tests.services.coordinator.harness import REFUSED, ScriptedAgent, synthetic_items
from tests.services.coordinator.ui.browser import watched_page
from tests.services.coordinator.ui.conftest import UiData, finished
from tests.services.live_api import Api
from tests.services.sampler.sampled_traces import store, trace_handler
from yardstick.api.evaluation import Evaluation

pytestmark = pytest.mark.integration
__all__ = ["provider"]


async def test_experiments_experiment_item_and_compare(browser: Browser, ui_data: UiData) -> None:
    base, cand = ui_data.baseline, ui_data.candidate
    view = await watched_page(browser)
    page = view.page
    await view.visit(await ui_data.sign_in_link(), "experiments")
    assert page.url.endswith("/ui/experiments")
    for experiment in (base, cand):
        row = page.locator("tr", has=page.get_by_role("link", name=experiment["name"], exact=True))
        await expect(row).to_contain_text(formatting.percent(experiment["aggregates"]["pass_rate"]))
        await expect(row).to_contain_text("completed")
    candidate_row = page.locator("tr", has=page.get_by_role("link", name="ui-candidate", exact=True))
    assert (await candidate_row.locator(".badge.regression").count() == 1) == bool(cand["regression"])

    # the experiment page: headline numbers, aggregates, charts drawn by Chart.js
    await page.get_by_role("link", name="ui-candidate", exact=True).click()
    await page.wait_for_load_state("networkidle")
    await view.shot("experiment")
    aggregates = cand["aggregates"]
    await expect(page.locator(".stat", has_text="Pass rate")).to_contain_text(
        formatting.percent(aggregates["pass_rate"])
    )
    for name, metric in aggregates["metrics"].items():
        row = page.locator("tr", has=page.locator("td", has_text=name)).first
        await expect(row).to_contain_text(formatting.score(metric["mean"]))
    assert await page.locator("canvas[data-drawn]").count() >= 2  # breakdowns and latency

    # the item table, filtered on the server by a failing evaluator
    failing_total = (
        await ui_data.client.get(
            f"/experiments/{cand['id']}/items", params={"failing": "order_correctness", "limit": 1}
        )
    ).json()["total"]
    assert failing_total > 0
    await page.select_option("select[name=failing]", "order_correctness")
    await expect(page).to_have_url(f"{ui_data.api.url}/ui/experiments/{cand['id']}?failing=order_correctness")
    await page.wait_for_load_state("networkidle")
    rows = page.locator("[data-table] tbody tr")
    await expect(rows).to_have_count(min(failing_total, 50))

    # an item: its scores with their verdicts
    await rows.first.get_by_role("link").first.click()
    await page.wait_for_load_state("networkidle")
    await view.shot("item")
    await expect(page.locator("tr", has_text="order_correctness").first.locator(".badge")).to_have_text(
        "fail"
    )

    # compare: tick both on the list, press Compare
    await view.visit(f"{ui_data.api.url}/ui/experiments")
    await page.check(f"input[data-pick][value='{base['id']}']")
    await page.check(f"input[data-pick][value='{cand['id']}']")
    await page.click("[data-compare-button]")
    await page.wait_for_load_state("networkidle")
    assert f"baseline={base['id']}" in page.url and f"candidate={cand['id']}" in page.url
    await view.shot("compare")
    comparison = (await ui_data.client.get(f"/comparisons/{cand['comparison_id']}")).json()
    report = comparison["report"]
    await expect(page.locator("[data-verdict]")).to_contain_text(report["verdict"])
    for metric in report["metrics"]:
        row = page.locator(f"tr[data-metric='{metric['metric']}']")
        await expect(row).to_contain_text(formatting.signed(metric["comparison"]["delta"]))
        await expect(row).to_contain_text(metric["status"].replace("_", " "))
    assert await page.locator("[data-reason]").count() == len(report["metrics"])

    # the item diff: worst first, and one opened shows both sides
    first = page.locator("details.diff").first
    await expect(first.locator(".badge").first).to_have_text("worse")
    await first.locator("summary").click()
    await expect(first.locator(".side-by-side")).to_be_visible()
    await expect(first.locator(".side-by-side h2").first).to_contain_text("Baseline")
    await view.shot("compare-item-open")
    assert view.clean() == []

    # the same page in the dark and at phone width still renders without errors
    dark = await watched_page(browser, dark=True)
    await dark.visit(await ui_data.sign_in_link(page.url.removeprefix(ui_data.api.url)), "compare-dark")
    phone = await watched_page(browser, width=390, height=844)
    await phone.visit(await ui_data.sign_in_link(), "experiments-phone")
    assert dark.clean() == [] and phone.clean() == []


async def test_pages_take_experiment_names_and_a_missing_one_is_a_framed_404(
    browser: Browser, ui_data: UiData
) -> None:
    """Names work wherever ids do (the newest run of that name, as the CLI resolves them); an
    unknown one is a 404 page inside the normal frame, saying what was not found and where to look."""
    base, cand = ui_data.baseline, ui_data.candidate
    view = await watched_page(browser)
    page = view.page
    await view.visit(await ui_data.sign_in_link("/ui/compare?baseline=ui-baseline&candidate=ui-candidate"))
    comparison = (await ui_data.client.get(f"/comparisons/{cand['comparison_id']}")).json()
    await expect(page.locator("[data-verdict]")).to_contain_text(comparison["report"]["verdict"])
    await expect(page.locator("h1")).to_contain_text("ui-baseline")
    await view.visit(f"{ui_data.api.url}/ui/experiments/ui-candidate")
    await expect(page.locator(".stat", has_text="Pass rate")).to_contain_text(
        formatting.percent(cand["aggregates"]["pass_rate"])
    )
    await view.visit(f"{ui_data.api.url}/ui/experiments/ui-baseline/items/syn-0003")
    await expect(page.locator("h1")).to_contain_text("syn-0003")
    assert view.clean() == []

    missing = await page.goto(f"{ui_data.api.url}/ui/compare?baseline={base['id']}&candidate=guess")
    assert missing is not None and missing.status == 404
    await view.shot("not-found")
    await expect(page.locator("h1")).to_have_text("Not Found")
    await expect(page.locator("main")).to_contain_text("No experiment has the id or name 'guess'")
    await expect(page.locator("main")).to_contain_text("yardstick experiments list")
    nav = page.locator("header nav[aria-label=Sections]")
    await expect(nav.get_by_role("link", name="Experiments")).to_have_attribute("href", "/ui/experiments")
    await expect(page.locator("header")).to_contain_text("Sign out")  # the signed-in frame
    nowhere = await page.goto(f"{ui_data.api.url}/ui/nowhere")
    assert nowhere is not None and nowhere.status == 404
    await expect(page.locator("main")).to_contain_text("There is no page at /ui/nowhere")
    await expect(nav.get_by_role("link", name="Compare")).to_be_visible()
    assert all("404" in p for p in view.clean())


def _explodes(**_: Any) -> Evaluation:
    raise RuntimeError("judge exploded")


async def test_an_items_failures_show_source_type_message_and_a_traceback_to_open(
    browser: Browser, api: Api, workers: Any, agent: ScriptedAgent, monkeypatch: pytest.MonkeyPatch
) -> None:
    add_for_test(monkeypatch, RegisteredEvaluator("explodes", _explodes, "item", "2", "raises", False))
    items = synthetic_items(2)
    items[1]["input"] = {"customer_utterance": f"{REFUSED} 1"}
    async with httpx.AsyncClient(
        base_url=api.url, headers={"Authorization": f"Bearer {api.key}"}, timeout=30
    ) as client:
        (
            await client.post("/datasets/fail-set/items", json={"items": items, "create": {}})
        ).raise_for_status()
        run = {"name": "failing", "dataset": "fail-set", "target": {"kind": "agent"}}
        created = await client.post(
            "/experiments", json={**run, "evaluators": ["order_correctness", "explodes"]}
        )
        experiment = await finished(client, created.json()["id"])
        link = await client.post(
            "/ui-links", json={"path": f"/ui/experiments/{experiment['id']}/items/syn-0000"}
        )
        link.raise_for_status()
        view = await watched_page(browser)
        page = view.page

        # an ok item whose evaluator raised: the evaluator's failure, named with its version
        await view.visit(f"{api.url}{link.json()['url']}")
        box = page.locator(".failure[data-source='evaluator']")
        await expect(box).to_contain_text("explodes@2")
        await expect(box).to_contain_text("RuntimeError")
        await expect(box).to_contain_text("judge exploded")
        traceback = box.locator("details.traceback pre")
        await expect(traceback).to_be_hidden()
        await box.locator("details.traceback summary").click()
        await expect(traceback).to_contain_text("in _explodes")
        await view.shot("item-evaluator-failure")

        # the refused item: the target's failure and no scores
        await view.visit(f"{api.url}/ui/experiments/{experiment['id']}/items/syn-0001")
        box = page.locator(".failure[data-source='target']")
        await expect(box).to_contain_text("The target call failed")
        await expect(box).to_contain_text("TargetRejected")
        await expect(box).to_contain_text("agent answered with an error: cannot take this order")
        await box.locator("details.traceback summary").click()
        await view.shot("item-target-failure")
        assert view.clean() == []


async def test_the_compare_page_follows_a_pairwise_judging(
    browser: Browser, provider: BadDayProvider, ui_data: UiData
) -> None:
    release = asyncio.Event()
    provider.fallback = Reply.json({"reason": "the first reads better", "better": "first"})
    provider.hold = release  # the judge answers only once the page has shown the judging
    base, cand = ui_data.baseline["id"], ui_data.candidate["id"]
    judge = {"criteria": "Longer is better.", "judge_model": "bad-day-model"}
    body = {"baseline_id": base, "candidate_id": cand, "judge": judge}
    (await ui_data.client.post("/comparisons", json=body)).raise_for_status()
    view = await watched_page(browser)
    page = view.page
    await view.visit(await ui_data.sign_in_link(f"/ui/compare?baseline={base}&candidate={cand}"))
    judging = page.locator("[data-judging]")
    await expect(judging).to_contain_text("Pairwise judge: judging")
    await expect(judging).to_contain_text("pairs judged")
    await view.shot("compare-judging")
    release.set()
    pairwise = page.locator("[data-pairwise]")  # the page polls until the judging is over
    await expect(pairwise).to_be_visible(timeout=60_000)
    await expect(judging).to_have_count(0)
    await expect(pairwise).to_contain_text("Tie")
    await expect(pairwise).to_contain_text(re.compile(r"tokens [\d,]+ in, [\d,]+ out"))
    await view.shot("compare-judged")
    assert view.clean() == []


async def test_datasets_and_online(
    browser: Browser, ui_data: UiData, session_factory: async_sessionmaker[AsyncSession]
) -> None:
    view = await watched_page(browser)
    page = view.page
    await view.visit(await ui_data.sign_in_link("/ui/datasets"), "datasets")
    await page.get_by_role("link", name="ui-set").click()
    await page.wait_for_load_state("networkidle")
    await expect(page.locator("h1")).to_have_text("ui-set")
    await expect(page.locator("[data-table] tbody tr")).to_have_count(30)
    # a second version: one item changed, one removed, one added; the diff says so
    items = (await ui_data.client.get("/datasets/ui-set/versions")).json()
    assert [v["version"] for v in items] == [1]
    changed = synthetic_items(31)[1:]
    changed[0]["input"] = {"customer_utterance": "order 1, changed"}
    (
        await ui_data.client.post("/datasets/ui-set/items", json={"items": changed, "replace": True})
    ).raise_for_status()
    await view.visit(f"{ui_data.api.url}/ui/datasets/ui-set?version=2&diff=1", "dataset-diff")
    stats = page.locator(".stat")
    await expect(stats.filter(has_text="Added")).to_contain_text("1")
    await expect(stats.filter(has_text="Changed")).to_contain_text("1")
    await expect(stats.filter(has_text="Removed")).to_contain_text("1")

    # online: scored traces of two models, one chart per evaluator, a line per application and model
    evaluators = [
        {"name": "tool_called", "args": {"tool": "lookup_order"}},
        {"name": "latency_budget", "args": {"max_ms": 1000}},
    ]
    config = {"rate": 1.0, "applications": {"support-bot": {"evaluators": evaluators}}}
    assert (await ui_data.client.put("/online/config", json=config)).status_code == 200
    handler = trace_handler(session_factory)
    now = datetime.now(UTC)
    for i in range(12):
        model = "gpt-test" if i % 2 else "other-model"
        at = now - timedelta(minutes=i)
        assert await store(session_factory, i, handler=handler, model=model, at=at) == "stored"
    await view.visit(f"{ui_data.api.url}/ui/online", "online")
    assert await page.locator("canvas[data-drawn]").count() >= 2
    await expect(page.locator("[data-online-chart=tool_called]")).to_contain_text("12 scores")
    assert view.clean() == []


async def test_a_running_experiment_shows_live_progress_then_its_results(
    browser: Browser, api: Api, workers: Any, agent: ScriptedAgent
) -> None:
    """The page follows the server-sent events while items are held, and shows the results when the
    run completes, without a reload by the visitor."""
    async with httpx.AsyncClient(
        base_url=api.url, headers={"Authorization": f"Bearer {api.key}"}, timeout=30
    ) as client:
        body = {"items": synthetic_items(6), "create": {"kind": "drive_thru"}}
        (await client.post("/datasets/live-set/items", json=body)).raise_for_status()
        agent.gate = asyncio.Event()
        created = await client.post(
            "/experiments", json={"name": "live", "dataset": "live-set", "target": {"kind": "agent"}}
        )
        experiment_id = created.json()["id"]
        link = (await client.post("/ui-links", json={"path": f"/ui/experiments/{experiment_id}"})).json()
        view = await watched_page(browser)
        await view.page.goto(f"{api.url}{link['url']}")
        await expect(view.page.locator("[data-progress-label]")).to_contain_text("0 / 6 done")
        await view.shot("experiment-running")
        agent.gate.set()
        await expect(view.page.locator(".stat", has_text="Pass rate")).to_be_visible(timeout=30_000)
        await expect(view.page.locator("h1 .badge").first).to_have_text("completed")
        await view.shot("experiment-completed-live")
        assert view.clean() == []
