"""``POST /experiments`` refuses an http target aimed at an address the workers may not call."""

from __future__ import annotations

import pytest

from tests.services.coordinator.conftest import experiment_body
from tests.services.coordinator.harness import Coordinator, synthetic_items

pytestmark = pytest.mark.integration

METADATA = {"kind": "http", "url": "http://169.254.169.254/latest/meta-data/"}
LOOPBACK = {"kind": "http", "url": "http://127.0.0.1:9/answer"}


async def test_a_refused_address_gets_422_naming_address_range_and_setting(coordinator: Coordinator) -> None:
    await coordinator.push("syn", synthetic_items(2))
    for target, address, network in [
        (METADATA, "169.254.169.254", "169.254.0.0/16"),
        (LOOPBACK, "127.0.0.1", "127.0.0.0/8"),
    ]:
        response = await coordinator.client.post("/experiments", json=experiment_body(target=target))
        assert response.status_code == 422, response.text
        problem = response.json()
        assert problem["error"] == "TargetAddressRefused"
        assert f"refused to call {address}: {network} is" in problem["detail"]
        assert "set TARGET_ALLOWED_NETWORKS" in problem["detail"]
    assert (await coordinator.client.get("/experiments")).json() == []


async def test_the_setting_lets_a_loopback_target_through(coordinator: Coordinator) -> None:
    await coordinator.push("syn", synthetic_items(2))
    coordinator.settings.target_allowed_networks = "127.0.0.0/8,::1/128"
    response = await coordinator.client.post("/experiments", json=experiment_body(target=LOOPBACK))
    assert response.status_code == 202, response.text
