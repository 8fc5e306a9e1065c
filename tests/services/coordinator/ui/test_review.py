"""The review page in headless Chromium: a queue of a candidate's failing items labelled with the
keyboard only (each label saved as soon as every field is answered, then the next item opens),
scores hidden until labelled, labels visible through the API as human scores; no console error."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from playwright.async_api import Browser, expect
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from shared.db.models import DriftAlertRow
from shared.online.sampling_config import SamplingSettings, save_config
from tests.services.coordinator.ui.browser import watched_page
from tests.services.coordinator.ui.conftest import UiData
from tests.services.coordinator.ui.test_sign_in import one_time_link
from tests.services.live_api import Api
from tests.services.sampler.sampled_traces import store, trace_handler
from tests.services.sampler.spans import trace_hex

pytestmark = pytest.mark.integration

RUBRIC = {
    "instructions": "Did the agent take the order the customer asked for?",
    "fields": [
        {"name": "correct", "kind": "binary", "instructions": "Every item, size and quantity right"},
        {"name": "helpfulness", "kind": "ordinal", "scale": [1, 5]},
    ],
}


async def test_labelling_a_queue_with_the_keyboard(browser: Browser, ui_data: UiData) -> None:
    c = ui_data.client
    candidate = ui_data.candidate["id"]
    source = {"kind": "experiment", "experiment_id": candidate, "failing": "order_correctness"}
    made = await c.post("/review/queues", json={"name": "dropped-orders", "source": source, "rubric": RUBRIC})
    assert made.status_code == 201, made.text
    queue = made.json()
    assert queue["items"] >= 3

    view = await watched_page(browser)
    page = view.page
    await view.visit(await ui_data.sign_in_link("/ui/review"), "review-queues")
    await expect(page.locator("main")).to_contain_text("dropped-orders")
    await page.get_by_role("link", name="Review", exact=True).last.click()
    await page.wait_for_url(f"**/ui/review/{queue['id']}/1")
    await expect(page.locator("main")).to_contain_text("hidden until you have labelled")
    await view.shot("review-item")

    for position, keys in ((1, ("y", "4")), (2, ("n", "1"))):
        await page.wait_for_url(f"**/ui/review/{queue['id']}/{position}")
        await page.wait_for_load_state("networkidle")
        for key in keys:
            await page.keyboard.press(key)
        await page.wait_for_url(f"**/ui/review/{queue['id']}/{position + 1}")
    await page.keyboard.press("ArrowLeft")  # back to item 2: labelled, so its scores show
    await page.wait_for_url(f"**/ui/review/{queue['id']}/2")
    await expect(page.locator("main")).to_contain_text("Evaluators' scores")
    await expect(page.locator(".rubric-field[data-field=correct] .choice.picked")).to_contain_text("Fail")
    await view.shot("review-item-labelled")
    assert view.clean() == []

    first = (await c.get(f"/review/queues/{queue['id']}/items/1", params={"reviewer": "cli-tests"})).json()
    assert [label["values"] for label in first["labels"]] == [{"correct": True, "helpfulness": 4}]
    item_id = first["item_id"]
    items = (await c.get(f"/experiments/{candidate}/items", params={"limit": 1000})).json()["items"]
    scores = {s["name"]: s["value"] for s in next(i for i in items if i["item_id"] == item_id)["scores"]}
    assert scores["human.correct"] == 1.0 and scores["human.helpfulness"] == 0.75
    progress = (await c.get(f"/review/queues/{queue['id']}")).json()
    assert progress["labelled"] == 2

    calibration = f"{ui_data.api.url}/ui/review/{queue['id']}/calibration?evaluator=order_correctness"
    await view.visit(calibration, "review-calibration")
    await expect(page.locator("main")).to_contain_text("Cohen's κ")
    await expect(page.locator("main")).to_contain_text("Between reviewers")
    report = (
        await c.get("/calibration", params={"queue": queue["id"], "evaluator": "order_correctness"})
    ).json()
    result = report["human_scale"]["order_correctness"]
    assert result["n_labelled"] == 2 and result["n_unlabelled"] == queue["items"] - 2
    means = page.locator("table.human-scale tbody tr")
    await expect(means).to_have_count(3)
    await expect(means.nth(0)).to_contain_text(f"{result['estimate']['value']:.3f}")
    await expect(means.nth(1)).to_contain_text(f"{result['judge_only']['value']:.3f}")
    await expect(means.nth(2)).to_contain_text(f"{result['labels_only']['value']:.3f}")
    await expect(page.locator("main")).to_contain_text(result["reason"])
    await expect(page.locator(".ci-dot")).to_have_count(3)
    await view.shot("review-calibration-human-scale")
    assert view.clean() == []


async def test_a_drift_alert_opens_a_review_queue_in_one_click(
    browser: Browser, api: Api, session_factory: async_sessionmaker[AsyncSession]
) -> None:
    async with session_factory() as session:
        await save_config(session, "default", SamplingSettings(rate=1.0))
        await session.commit()
    now = datetime.now(UTC)
    handler = trace_handler(session_factory)
    for n in range(3):
        assert await store(session_factory, n, handler=handler, at=now - timedelta(minutes=n)) == "stored"
    assert await store(session_factory, 3, handler=handler, at=now - timedelta(hours=3)) == "stored"
    window = {
        "window_start": (now - timedelta(hours=1)).isoformat(),
        "window_end": (now + timedelta(minutes=1)).isoformat(),
    }
    async with session_factory() as session:
        session.add(
            DriftAlertRow(
                evaluator="tool_called",
                model="gpt-test",
                prompt_version="-",
                reference="offline",
                application="support-bot",
                detail={**window, "delta": -0.3, "p_value": 0.001},
            )
        )
        await session.commit()

    view = await watched_page(browser)
    await view.visit(await one_time_link(api, "/ui/online"))
    await view.page.get_by_role("button", name="Review its traces").click()
    await view.page.wait_for_url("**/ui/review/*/1")
    await expect(view.page.locator("main")).to_contain_text("acceptable")
    await expect(view.page.locator("h1")).to_contain_text("of 3")  # the window's traces only
    assert view.clean() == []


async def test_a_drift_alert_on_an_application_opens_a_queue_of_its_traces(
    browser: Browser, api: Api, session_factory: async_sessionmaker[AsyncSession]
) -> None:
    async with session_factory() as session:
        await save_config(session, "default", SamplingSettings(rate=1.0))
        session.add(
            DriftAlertRow(
                evaluator="tool_called",
                model="gpt-test",
                prompt_version="-",
                reference="previous_window",
                application="support-bot",
                detail={"delta": -0.4, "p_value": 0.001},
            )
        )
        await session.commit()
    handler = trace_handler(session_factory)
    for n in range(2):
        assert await store(session_factory, n, handler=handler) == "stored"

    view = await watched_page(browser)
    page = view.page
    await view.visit(await one_time_link(api, "/ui/online"))
    await page.get_by_role("button", name="Review its traces").click()
    await page.wait_for_url("**/ui/review/*/1")
    await expect(page.locator("h1")).to_contain_text("of 2")
    await expect(page.locator("main")).to_contain_text("Where is order 0?")  # the trace's conversation
    await expect(page.locator("main")).to_contain_text("lookup_order")  # its tool call
    raw = page.locator("[data-raw]")  # the recorded JSON, folded away under the conversation
    await expect(raw).not_to_have_attribute("open", "")
    await expect(raw.locator("pre").first).to_be_hidden()
    await page.wait_for_load_state("networkidle")
    await view.shot("review-trace-item")
    await page.keyboard.press("n")  # acceptable: fail
    await page.keyboard.press("Enter")  # the rubric has a text field: Enter saves
    await page.wait_for_url("**/ui/review/*/2")
    await view.visit(f"{api.url}/ui/traces/{trace_hex(0)}")
    human = page.locator("[data-human-score]")
    await expect(human).to_contain_text("human.acceptable")
    await expect(human).to_contain_text("drift-")
    await expect(human).to_contain_text("cli-tests: fail")  # the label in words, not a raw False
    await view.shot("trace-human-score")
    assert view.clean() == []
