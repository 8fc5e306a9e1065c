"""Headless Chromium (Debian's package, driven by Playwright) for the web UI's tests: every page
visited is checked for console errors and failed requests, and saved as a screenshot under
.yardstick/screens/ (ignored by git) to look at."""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass, field
from pathlib import Path

from playwright.async_api import Browser, ConsoleMessage, Page, Request, Response

SCREENS = Path(__file__).resolve().parents[4] / ".yardstick" / "screens"
CHROMIUM_ARGS = [
    "--no-sandbox",  # root in CI
    "--disable-gpu",
    "--disable-background-networking",  # no calls home: this machine has no internet
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


def chromium_path() -> str:
    path = (
        os.environ.get("YARDSTICK_CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")
    )
    if not path:
        raise RuntimeError("Chromium is not installed: `make browser` installs Debian's chromium package")
    return path


@dataclass
class Watched:
    """A page whose console errors, failed requests and HTTP errors are recorded."""

    page: Page
    problems: list[str] = field(default_factory=list)

    def clean(self) -> list[str]:
        found, self.problems = self.problems, []
        return found

    async def visit(self, url: str, screenshot: str | None = None) -> None:
        response = await self.page.goto(url)
        await self.page.wait_for_load_state("networkidle")
        assert response is not None
        if screenshot:
            await self.shot(screenshot)

    async def shot(self, name: str) -> Path:
        SCREENS.mkdir(parents=True, exist_ok=True)
        path = SCREENS / f"{name}.png"
        await self.page.screenshot(path=str(path), full_page=True)
        return path


async def watched_page(
    browser: Browser, *, width: int = 1280, height: int = 800, dark: bool = False
) -> Watched:
    context = await browser.new_context(
        viewport={"width": width, "height": height}, color_scheme="dark" if dark else "light"
    )
    page = await context.new_page()
    watched = Watched(page)

    def on_console(message: ConsoleMessage) -> None:
        if message.type == "error":
            watched.problems.append(f"console: {message.text}")

    def on_failed(request: Request) -> None:
        watched.problems.append(f"failed request: {request.url} ({request.failure})")

    def on_response(response: Response) -> None:
        if response.status >= 400:
            watched.problems.append(f"HTTP {response.status}: {response.url}")

    page.on("console", on_console)
    page.on("requestfailed", on_failed)
    page.on("response", on_response)
    return watched
