"""The outbound guard's pure check and its resolver-aware check (DNS stubbed: no lookup leaves)."""

from __future__ import annotations

import re

import pytest

from shared.http.outbound_guard import (
    SETTING,
    OutboundPolicy,
    OutboundRefused,
    Resolver,
    check_host,
    parse_networks,
)
from shared.settings import CommonSettings

pytestmark = pytest.mark.unit

STRICT = OutboundPolicy()


@pytest.mark.parametrize(
    ("address", "network"),
    [
        ("127.0.0.1", "127.0.0.0/8"),
        ("[::1]", "::1/128"),
        ("10.20.30.40", "10.0.0.0/8"),
        ("172.16.5.4", "172.16.0.0/12"),
        ("192.168.1.1", "192.168.0.0/16"),
        ("169.254.169.254", "169.254.0.0/16"),
        ("[::ffff:127.0.0.1]", "127.0.0.0/8"),
        ("::ffff:169.254.169.254", "169.254.0.0/16"),
        ("0.0.0.0", "0.0.0.0/8"),
        ("::", "::/128"),
        ("100.64.0.1", "100.64.0.0/10"),
        ("224.0.0.1", "224.0.0.0/4"),
        ("255.255.255.255", "240.0.0.0/4"),
        ("fd12::1", "fc00::/7"),
        ("fe80::1%eth0", "fe80::/10"),
        ("ff02::1", "ff00::/8"),
        ("2002:7f00:1::1", "127.0.0.0/8"),  # 6to4 carrying 127.0.0.1
        ("64:ff9b::a00:1", "10.0.0.0/8"),  # NAT64 carrying 10.0.0.1
    ],
)
def test_refuses_non_public_addresses_naming_the_range_and_the_setting(address: str, network: str) -> None:
    sentence = STRICT.refusal(address)
    assert sentence is not None
    assert f"{network} is" in sentence
    assert SETTING in sentence


def test_the_sentence_names_the_address_the_host_and_an_allowance() -> None:
    sentence = STRICT.refusal("127.0.0.1", host="metadata.internal")
    assert sentence == (
        "refused to call metadata.internal (127.0.0.1): 127.0.0.0/8 is loopback; set "
        "TARGET_ALLOWED_NETWORKS (comma-separated CIDRs, e.g. 127.0.0.1/32) on the services to allow it"
    )


@pytest.mark.parametrize("address", ["93.184.215.14", "2606:4700::1111", "::ffff:8.8.8.8"])
def test_public_addresses_pass(address: str) -> None:
    assert STRICT.refusal(address) is None


def test_allowed_networks_let_exactly_their_addresses_through() -> None:
    policy = OutboundPolicy.from_setting("127.0.0.0/8, ::1/128,10.1.2.3")
    assert policy.refusal("127.0.0.5") is None
    assert policy.refusal("::1") is None
    assert policy.refusal("[::ffff:127.0.0.1]") is None, "an IPv4 allowance covers its mapped form"
    assert policy.refusal("10.1.2.3") is None
    assert policy.refusal("10.1.2.4") is not None
    assert policy.refusal("169.254.169.254") is not None
    with pytest.raises(OutboundRefused, match=re.escape("169.254.169.254")):
        policy.require("169.254.169.254")


def test_a_malformed_allowance_is_refused_naming_the_entry(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(ValueError, match="'localhost' is not a network"):
        parse_networks("127.0.0.0/8,localhost")
    assert parse_networks(" , ") == ()
    monkeypatch.setenv("TARGET_ALLOWED_NETWORKS", "10.0.0.0/33")
    with pytest.raises(ValueError, match=re.escape("10.0.0.0/33")):
        CommonSettings(database_url="postgresql+asyncpg://x@y/z")


def test_settings_read_one_variable_for_every_service(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TARGET_ALLOWED_NETWORKS", "127.0.0.0/8,::1/128")
    settings = CommonSettings(database_url="postgresql+asyncpg://x@y/z")
    assert settings.outbound_policy.refusal("127.0.0.1") is None
    monkeypatch.delenv("TARGET_ALLOWED_NETWORKS")
    strict = CommonSettings(database_url="postgresql+asyncpg://x@y/z")
    assert strict.outbound_policy.refusal("127.0.0.1") is not None


def stub_dns(answers: dict[str, list[str]]) -> tuple[Resolver, list[str]]:
    """A resolver answering from ``answers`` (unknown names fail), and the names it was asked."""
    asked: list[str] = []

    async def resolve(host: str, port: int) -> list[str]:
        asked.append(host)
        if host not in answers:
            raise OSError(f"stub: no such host {host!r}")
        return answers[host]

    return resolve, asked


async def test_a_host_resolving_to_loopback_is_refused() -> None:
    resolve, asked = stub_dns({"innocent.example": ["127.0.0.1"]})
    with pytest.raises(
        OutboundRefused, match=r"innocent\.example \(127\.0\.0\.1\): 127\.0\.0\.0/8 is loopback"
    ):
        await check_host(STRICT, "innocent.example", 443, resolve)
    assert asked == ["innocent.example"]


async def test_every_resolved_address_must_be_allowed() -> None:
    resolve, _ = stub_dns({"mixed.example": ["93.184.215.14", "10.0.0.7"]})
    with pytest.raises(OutboundRefused, match=re.escape("10.0.0.7")):
        await check_host(STRICT, "mixed.example", 80, resolve)
    public, _ = stub_dns({"public.example": ["93.184.215.14", "2606:4700::1111"]})
    assert await check_host(STRICT, "public.example", 80, public) == ["93.184.215.14", "2606:4700::1111"]


async def test_ip_literals_are_judged_without_asking_dns() -> None:
    resolve, asked = stub_dns({})
    with pytest.raises(OutboundRefused, match="::1/128 is loopback"):
        await check_host(STRICT, "[::1]", 80, resolve)
    assert await check_host(OutboundPolicy.from_setting("::1/128"), "[::1]", 80, resolve) == ["::1"]
    assert asked == []
