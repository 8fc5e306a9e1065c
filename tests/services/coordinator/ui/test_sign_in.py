"""Signing in to the web UI: a session is required everywhere, a one-time link works once, a
state-changing request without the CSRF token is refused."""

from __future__ import annotations

import httpx
import pytest
from playwright.async_api import Browser, expect

from tests.services.coordinator.ui.browser import watched_page
from tests.services.live_api import Api

pytestmark = pytest.mark.integration


async def one_time_link(api: Api, path: str = "/ui/experiments") -> str:
    async with httpx.AsyncClient(base_url=api.url, headers={"Authorization": f"Bearer {api.key}"}) as client:
        response = await client.post("/ui-links", json={"path": path})
        assert response.status_code == 201, response.text
        return f"{api.url}{response.json()['url']}"


async def test_every_page_needs_a_session_and_a_key_signs_in(browser: Browser, api: Api) -> None:
    view = await watched_page(browser)
    page = view.page
    for path in ("/ui/experiments", "/ui/datasets", "/ui/online", "/ui/compare", "/ui/experiments/x/items/y"):
        await page.goto(api.url + path)
        assert "/ui/sign-in?next=" in page.url, path
    await view.shot("sign-in")
    await page.fill("input[name=key]", "ys_not-a-key")
    await page.click("button[type=submit]")
    await expect(page.locator("[role=alert]")).to_contain_text("not valid")
    await page.fill("input[name=key]", api.key)
    await page.click("button[type=submit]")
    await page.wait_for_load_state("networkidle")
    assert page.url == f"{api.url}/ui/experiments/x/items/y"  # back where the visitor was going
    await expect(page.locator("h1")).to_have_text("Not Found")  # no such experiment, as a page
    cookie = next(c for c in await page.context.cookies() if c["name"] == "ys_session")
    assert cookie["httpOnly"] and cookie["sameSite"] == "Strict"
    await view.visit(f"{api.url}/ui/experiments", "experiments-empty")
    await expect(page.locator(".empty")).to_contain_text("No experiments yet")
    # only the deliberate 401 of the wrong key and the 404 page were errors
    assert all(("401" in p or "404" in p) for p in view.clean())


async def test_a_one_time_link_works_once(browser: Browser, api: Api) -> None:
    link = await one_time_link(api, "/ui/datasets")
    first = await watched_page(browser)
    await first.visit(link)
    assert first.page.url == f"{api.url}/ui/datasets"
    second = await watched_page(browser)  # another browser profile
    await second.page.goto(link)
    assert second.page.url.startswith(f"{api.url}/ui/sign-in")
    await expect(second.page.locator("[role=alert]")).to_contain_text("already used or has expired")
    await second.page.goto(f"{api.url}/ui/datasets")
    assert "/ui/sign-in" in second.page.url  # no session was opened
    # a link may only lead inside the UI
    async with httpx.AsyncClient(base_url=api.url, headers={"Authorization": f"Bearer {api.key}"}) as client:
        outside = await client.post("/ui-links", json={"path": "https://evil.example/"})
        assert outside.status_code == 422 and "inside the web UI" in outside.json()["detail"]


async def test_state_changing_requests_need_the_csrf_token(browser: Browser, api: Api) -> None:
    view = await watched_page(browser)
    await view.visit(await one_time_link(api))
    request = view.page.context.request
    without = await request.post(f"{api.url}/ui/sign-out", form={"x": "1"}, max_redirects=0)
    assert without.status == 403 and "security token" in await without.text()
    wrong = await request.post(
        f"{api.url}/ui/online/alerts/none/review",
        form={"csrf_token": "forged"},
        max_redirects=0,
    )
    assert wrong.status == 403
    # the page's own form carries the token: signing out works and ends the session
    await view.page.click("text=Sign out")
    await view.page.wait_for_load_state("networkidle")
    assert "/ui/sign-in" in view.page.url
    await view.page.goto(f"{api.url}/ui/experiments")
    assert "/ui/sign-in" in view.page.url


async def test_a_viewer_key_sees_its_role_and_the_server_refuses_what_it_may_not_do(
    browser: Browser, api: Api
) -> None:
    async with httpx.AsyncClient(base_url=api.url, headers={"Authorization": f"Bearer {api.key}"}) as client:
        made = await client.post("/keys", json={"name": "reader", "role": "viewer"})
        assert made.status_code == 201, made.text
    viewer = Api(url=api.url, key=made.json()["key"])
    view = await watched_page(browser)
    await view.visit(await one_time_link(viewer, "/ui/online"), "online-viewer")
    await expect(view.page.locator("header")).to_contain_text("reader · viewer")
    csrf = await view.page.locator("body").get_attribute("hx-headers")
    assert csrf is not None
    token = csrf.split('"')[3]  # {"X-CSRF-Token": "..."}
    refused = await view.page.context.request.post(
        f"{api.url}/ui/online/alerts/none/review",
        form={"csrf_token": token},
        max_redirects=0,
    )
    assert refused.status == 403 and "needs a runner key" in await refused.text()
    await expect(view.page.locator("nav")).not_to_contain_text("Audit")
    denied = await view.page.goto(f"{api.url}/ui/audit")
    assert denied is not None and denied.status == 403

    owner = await watched_page(browser)
    await owner.visit(await one_time_link(api, "/ui/audit"), "audit")
    await expect(owner.page.locator("nav")).to_contain_text("Audit")
    row = owner.page.locator("tbody tr", has_text="key.create").first
    await expect(row).to_contain_text('"role": "viewer"')


async def test_an_owner_switches_projects_and_a_project_key_sees_only_its_own(
    browser: Browser, api: Api
) -> None:
    async with httpx.AsyncClient(base_url=api.url, headers={"Authorization": f"Bearer {api.key}"}) as client:
        assert (await client.post("/projects", json={"name": "team-b"})).status_code == 201
        for name, headers in (("ours", {}), ("theirs", {"X-Yardstick-Project": "team-b"})):
            body = {"items": [{"id": "a", "input": {"q": "x"}}], "create": {"kind": "generic"}}
            pushed = await client.post(f"/datasets/{name}/items", json=body, headers=headers)
            assert pushed.status_code == 200, pushed.text
        made = await client.post("/keys", json={"name": "b-viewer", "role": "viewer", "project": "team-b"})
        assert made.status_code == 201, made.text

    owner = await watched_page(browser)
    await owner.visit(await one_time_link(api, "/ui/datasets"))
    table = owner.page.locator("main")
    await expect(table).to_contain_text("ours")
    await expect(table).not_to_contain_text("theirs")
    await owner.page.select_option("header select[name=project]", "team-b")
    await owner.page.wait_for_url("**/ui/experiments")
    await owner.visit(f"{api.url}/ui/datasets", "datasets-project-switched")
    await expect(table).to_contain_text("theirs")
    await expect(table).not_to_contain_text("ours")
    assert await owner.page.locator("header select[name=project]").input_value() == "team-b"
    assert owner.clean() == []

    viewer = await watched_page(browser)
    await viewer.visit(await one_time_link(Api(url=api.url, key=made.json()["key"]), "/ui/datasets"))
    await expect(viewer.page.locator("header")).to_contain_text("project: team-b")
    await expect(viewer.page.locator("header select[name=project]")).to_have_count(0)
    await expect(viewer.page.locator("main")).to_contain_text("theirs")
    missing = await viewer.page.goto(f"{api.url}/ui/datasets/ours")
    assert missing is not None and missing.status == 404
