from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import httpx
import pytest
from playwright.async_api import Browser, async_playwright

from tests.services.coordinator.harness import ScriptedAgent, synthetic_items
from tests.services.coordinator.ui.browser import CHROMIUM_ARGS, chromium_path
from tests.services.live_api import Api
from yardstick.api.experiment_status import TERMINAL_STATUSES


@pytest.fixture
async def browser() -> AsyncIterator[Browser]:
    async with async_playwright() as playwright:
        launched = await playwright.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_ARGS)
        yield launched
        await launched.close()


@dataclass
class UiData:
    api: Api
    client: httpx.AsyncClient
    baseline: dict[str, Any]
    candidate: dict[str, Any]

    async def sign_in_link(self, path: str = "/ui/experiments") -> str:
        response = await self.client.post("/ui-links", json={"path": path})
        response.raise_for_status()
        return f"{self.api.url}{response.json()['url']}"


async def finished(client: httpx.AsyncClient, experiment_id: str, timeout: float = 60.0) -> dict[str, Any]:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        body: dict[str, Any] = (await client.get(f"/experiments/{experiment_id}")).json()
        if body["status"] in TERMINAL_STATUSES:
            return body
        assert loop.time() < deadline, f"experiment never finished: {body}"
        await asyncio.sleep(0.05)


@pytest.fixture
async def ui_data(api: Api, workers: Any, agent: ScriptedAgent) -> AsyncIterator[UiData]:
    """A dataset of 30 items, a baseline run and a candidate that drops 40 % of the orders,
    compared with its baseline at completion, on the coordinator served over real HTTP."""
    async with httpx.AsyncClient(
        base_url=api.url, headers={"Authorization": f"Bearer {api.key}"}, timeout=30
    ) as client:
        body = {"items": synthetic_items(30), "create": {"kind": "drive_thru", "description": "UI test set"}}
        (await client.post("/datasets/ui-set/items", json=body)).raise_for_status()
        run = {"dataset": "ui-set", "target": {"kind": "agent"}, "concurrency": 8}
        created = await client.post("/experiments", json={**run, "name": "ui-baseline"})
        baseline = await finished(client, created.json()["id"])
        agent.drop_fraction = 0.4
        created = await client.post(
            "/experiments", json={**run, "name": "ui-candidate", "baseline_id": baseline["id"]}
        )
        candidate = await finished(client, created.json()["id"])
        assert baseline["status"] == candidate["status"] == "completed"
        yield UiData(api, client, baseline, candidate)
