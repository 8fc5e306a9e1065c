"""The review page in headless Chromium: a queue of a candidate's failing items labelled with the
keyboard only (each label saved as soon as every field is answered, then the next item opens),
scores hidden until labelled, labels visible through the API as human scores; no console error."""

from __future__ import annotations

import pytest
from playwright.async_api import Browser, expect

from tests.services.coordinator.ui.browser import watched_page
from tests.services.coordinator.ui.conftest import UiData

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
