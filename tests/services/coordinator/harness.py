"""Test harness for the coordinator: an in-process coordinator, in-process eval workers and a
scripted agent on the real NATS + Postgres of the session fixtures."""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import httpx
from fastapi import FastAPI
from nats.aio.client import Client as NatsClient
from nats.aio.msg import Msg

from services.coordinator.app import create_app
from services.coordinator.runtime import Runtime
from services.coordinator.settings import CoordinatorSettings
from shared.db.api_keys import create_key_sync
from yardstick.api.agent_messages import AgentInvokeRequest, AgentInvokeResponse, OrderLine, TokenUsage
from yardstick.api.experiment_status import TERMINAL_STATUSES
from yardstick.api.nats_interest import subscriptions_registered
from yardstick.api.roles import Role
from yardstick.api.topology import Topology

SECRET = "test-secret-not-for-production"


def menu_line(n: int) -> dict[str, Any]:
    return {
        "item_id": f"item-{n % 7}",
        "name": f"Item {n % 7}",
        "quantity": 1 + n % 3,
        "size": "regular",
        "modifiers": [],
    }


def synthetic_items(count: int) -> list[dict[str, Any]]:
    """Items whose utterance encodes the expected order line, so a scripted agent can be right."""
    return [
        {
            "id": f"syn-{n:04d}",
            "input": {"customer_utterance": f"order {n}"},
            "expected_output": {"expected_items": [menu_line(n)]},
            "metadata": {"category": ["simple", "quantity", "combo"][n % 3], "difficulty": "easy"},
        }
        for n in range(count)
    ]


def drops(utterance: str, fraction: float) -> bool:
    """Deterministic: does a degraded agent return nothing for this utterance?"""
    digest = int(hashlib.sha256(utterance.encode()).hexdigest()[:8], 16)
    return digest / 0xFFFFFFFF < fraction


REFUSED = "refuse"
"""An utterance starting so gets the agent's own error (``ok=False``): a target that fails."""


@dataclass
class ScriptedAgent:
    """Answers agent.invoke; tracks the most requests it ever had in flight at once."""

    nc: NatsClient
    subject: str
    hold_s: float = 0.0
    drop_fraction: float = 0.0
    gate: asyncio.Event | None = None
    in_flight: int = 0
    max_in_flight: int = 0
    calls: int = 0
    usage: TokenUsage | None = None
    """Token usage every answer reports (None: like the offline model, none)."""
    _tasks: set[asyncio.Task[None]] = field(default_factory=set)

    async def start(self) -> ScriptedAgent:
        self._sub = await self.nc.subscribe(self.subject, queue="agents", cb=self._on)
        await subscriptions_registered(self.nc)
        return self

    async def stop(self) -> None:
        await self._sub.unsubscribe()

    async def answered(self) -> None:
        """Return once every call in flight now has been answered (later calls are not waited for)."""
        await asyncio.gather(*list(self._tasks), return_exceptions=True)

    async def _on(self, msg: Msg) -> None:
        task = asyncio.create_task(self._answer(msg))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _answer(self, msg: Msg) -> None:
        request = AgentInvokeRequest.model_validate_json(msg.data)
        self.calls += 1
        self.in_flight += 1
        self.max_in_flight = max(self.max_in_flight, self.in_flight)
        try:
            if self.gate is not None:
                await self.gate.wait()
            if self.hold_s:
                await asyncio.sleep(self.hold_s)  # simulated model latency, not a wait-for-event
            if request.customer_utterance.startswith(REFUSED):
                response = AgentInvokeResponse(ok=False, error="cannot take this order")
            else:
                response = self._order(request)
        finally:
            self.in_flight -= 1
        await msg.respond(response.model_dump_json().encode())

    def _order(self, request: AgentInvokeRequest) -> AgentInvokeResponse:
        n = int(request.customer_utterance.split()[-1])
        lines = [] if drops(request.customer_utterance, self.drop_fraction) else [OrderLine(**menu_line(n))]
        return AgentInvokeResponse(
            order_items=lines,
            tool_calls=["lookup_menu_item", "add_item_to_order"] if lines else ["lookup_menu_item"],
            response="ok",
            item_count=sum(line.quantity for line in lines),
            latency_ms=self.hold_s * 1000,
            usage=self.usage,
        )


@dataclass
class Coordinator:
    settings: CoordinatorSettings
    app: FastAPI
    client: httpx.AsyncClient
    key: str

    @property
    def runtime(self) -> Runtime:
        runtime: Runtime = self.app.state.runtime
        return runtime

    async def restart(self) -> None:
        await self.runtime.stop()
        self.app = create_app(self.settings)
        self.client._transport = httpx.ASGITransport(app=self.app)
        await self.runtime.start()

    async def wait_until(
        self,
        experiment_id: str,
        predicate: Callable[[dict[str, Any]], bool],
        timeout: float = 60.0,
        headers: dict[str, str] | None = None,
    ) -> dict[str, Any]:
        """Poll the API (the only observable of the coordinator) until the predicate holds."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            response = await self.client.get(f"/experiments/{experiment_id}", headers=headers)
            body: dict[str, Any] = response.json()
            if predicate(body):
                return body
            if loop.time() > deadline:
                raise TimeoutError(f"experiment never satisfied the condition; last state: {body}")
            await asyncio.sleep(0.05)

    async def finished(self, experiment_id: str, timeout: float = 60.0) -> dict[str, Any]:
        return await self.wait_until(experiment_id, lambda b: b["status"] in TERMINAL_STATUSES, timeout)

    async def push(self, name: str, items: list[dict[str, Any]], kind: str = "drive_thru") -> None:
        (await self.client.post("/datasets", json={"name": name, "kind": kind})).raise_for_status()
        (
            await self.client.post(f"/datasets/{name}/items", json={"items": items, "replace": True})
        ).raise_for_status()


async def start_coordinator(database_url: str, nats_url: str, topology: Topology) -> Coordinator:
    settings = CoordinatorSettings.model_validate(  # validate: the secret is set by its env alias
        {
            "database_url": database_url,
            "nats_url": nats_url,
            "nats_namespace": topology.namespace,
            "dispatch_interval_s": 0.2,
            "YARDSTICK_API_KEY_SECRET": SECRET,
        }
    )
    key = await asyncio.to_thread(create_key_sync, database_url, SECRET, "tests", Role.OWNER)
    app = create_app(settings)
    client = httpx.AsyncClient(
        transport=httpx.ASGITransport(app=app),
        base_url="http://coordinator",
        headers={"Authorization": f"Bearer {key}"},
        timeout=30,
    )
    coordinator = Coordinator(settings, app, client, key)
    await coordinator.runtime.start()
    return coordinator


StartAgent = Callable[..., Awaitable[ScriptedAgent]]


async def ui_page(coordinator: Coordinator, path: str) -> str:
    """The HTML of a web UI page, signed in through a one-time link (the session cookie kept)."""
    link = await coordinator.client.post("/ui-links", json={"path": path})
    link.raise_for_status()
    async with httpx.AsyncClient(
        transport=httpx.ASGITransport(app=coordinator.app),
        base_url="http://coordinator",
        follow_redirects=True,
    ) as browser:
        page = await browser.get(link.json()["url"])
        page.raise_for_status()
        return page.text
