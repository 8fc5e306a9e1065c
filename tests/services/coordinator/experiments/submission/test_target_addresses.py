"""The submission-time check of an http target's host (DNS stubbed: no lookup leaves the test)."""

from __future__ import annotations

import asyncio

import pytest

from services.coordinator.errors import TargetAddressRefused
from services.coordinator.experiments.submission import target_addresses
from services.coordinator.experiments.submission.target_addresses import require_allowed_address
from shared.http.outbound_guard import OutboundPolicy
from yardstick.api.eval_messages import AgentTarget, HttpTarget

pytestmark = pytest.mark.unit

STRICT = OutboundPolicy()


async def resolves_to_loopback(host: str, port: int) -> list[str]:
    return ["127.0.0.1"]


async def does_not_resolve(host: str, port: int) -> list[str]:
    raise OSError("Name or service not known")


async def hangs(host: str, port: int) -> list[str]:
    await asyncio.Event().wait()
    raise AssertionError("unreachable")


async def test_a_name_resolving_to_loopback_is_refused_with_address_reason_and_setting() -> None:
    target = HttpTarget(url="http://answers.example:8080/ask")
    with pytest.raises(TargetAddressRefused) as refused:
        await require_allowed_address(STRICT, target, resolves_to_loopback)
    assert refused.value.status_code == 422
    assert refused.value.message == (
        "http target http://answers.example:8080/ask: refused to call answers.example (127.0.0.1): "
        "127.0.0.0/8 is loopback; set TARGET_ALLOWED_NETWORKS (comma-separated CIDRs, e.g. "
        "127.0.0.1/32) on the services to allow it"
    )


@pytest.mark.parametrize(
    "url", ["http://169.254.169.254/latest/meta-data/", "http://[::ffff:127.0.0.1]:9/x", "https://10.0.0.8/"]
)
async def test_literal_addresses_are_refused_without_dns(url: str) -> None:
    with pytest.raises(TargetAddressRefused, match="TARGET_ALLOWED_NETWORKS"):
        await require_allowed_address(STRICT, HttpTarget(url=url), does_not_resolve)


async def test_allowed_networks_and_other_target_kinds_pass() -> None:
    allowed = OutboundPolicy.from_setting("127.0.0.0/8")
    await require_allowed_address(allowed, HttpTarget(url="http://answers.example/ask"), resolves_to_loopback)
    await require_allowed_address(STRICT, AgentTarget(), resolves_to_loopback)


async def test_a_name_the_coordinator_cannot_resolve_is_left_to_the_workers(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    target = HttpTarget(url="http://svc.cluster.internal/ask")
    await require_allowed_address(STRICT, target, does_not_resolve)
    monkeypatch.setattr(target_addresses, "RESOLVE_TIMEOUT_S", 0.05)
    await require_allowed_address(STRICT, target, hangs)
