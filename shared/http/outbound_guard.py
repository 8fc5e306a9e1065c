"""Which addresses Yardstick may call on a user's behalf (``http`` targets, upstream search).

A URL in an experiment can name any host; without a guard, any key holder could make the eval
workers call ``127.0.0.1``, a private network or the cloud metadata service (``169.254.169.254``)
and read the answer back as an item's output. So every outgoing call to such a URL goes only to
addresses outside the ranges below, unless ``TARGET_ALLOWED_NETWORKS`` (comma-separated CIDRs)
allows them.

- :meth:`OutboundPolicy.refusal` is the pure check: one address, allowed (``None``) or the
  sentence saying which range refuses it and which setting would allow it.
- :func:`check_host` resolves a host name (all its addresses must be allowed); the clients apply
  the same check to the addresses they connect to (evaluator: an aiohttp resolver; search-proxy:
  an httpx transport), so a changed DNS answer or a redirect cannot slip past it.

IPv6 forms that carry an IPv4 address (``::ffff:127.0.0.1``, NAT64 ``64:ff9b::/96``, 6to4
``2002::/16``) are judged by that IPv4 address too.
"""

from __future__ import annotations

import asyncio
import ipaddress
import socket
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

__all__ = [
    "SETTING",
    "OutboundPolicy",
    "OutboundRefused",
    "Resolver",
    "check_host",
    "is_ip_literal",
    "parse_networks",
    "system_resolver",
]

SETTING = "TARGET_ALLOWED_NETWORKS"

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
IPNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network
Resolver = Callable[[str, int], Awaitable[list[str]]]
"""host, port → the addresses a connection could go to."""

_REFUSED: tuple[tuple[str, str], ...] = (
    # Most specific first: the first containing range names the refusal.
    ("0.0.0.0/8", "unspecified ('this network')"),
    ("10.0.0.0/8", "private"),
    ("100.64.0.0/10", "shared (carrier-grade NAT)"),
    ("127.0.0.0/8", "loopback"),
    ("169.254.0.0/16", "link-local (cloud metadata services live here)"),
    ("172.16.0.0/12", "private"),
    ("192.0.0.0/24", "reserved (IETF protocol assignments)"),
    ("192.0.2.0/24", "reserved (documentation)"),
    ("192.168.0.0/16", "private"),
    ("198.18.0.0/15", "reserved (benchmarking)"),
    ("198.51.100.0/24", "reserved (documentation)"),
    ("203.0.113.0/24", "reserved (documentation)"),
    ("224.0.0.0/4", "multicast"),
    ("240.0.0.0/4", "reserved (including broadcast)"),
    ("::/128", "unspecified"),
    ("::1/128", "loopback"),
    ("::/96", "reserved (IPv4-compatible)"),
    ("64:ff9b:1::/48", "private (local NAT64)"),
    ("100::/64", "reserved (discard-only)"),
    ("2001::/23", "reserved (IETF protocol assignments)"),
    ("2001:db8::/32", "reserved (documentation)"),
    ("fc00::/7", "private (unique local)"),
    ("fe80::/10", "link-local"),
    ("fec0::/10", "private (site-local)"),
    ("ff00::/8", "multicast"),
)
REFUSED_NETWORKS: tuple[tuple[IPNetwork, str], ...] = tuple(
    (ipaddress.ip_network(cidr), why) for cidr, why in _REFUSED
)
_NAT64 = ipaddress.IPv6Network("64:ff9b::/96")


class OutboundRefused(Exception):
    """A call to an address the policy refuses; the message names the address, its range and the
    setting that would allow it. Not an ``OSError``: clients must not take it for a network fault
    worth retrying."""


def parse_networks(value: str) -> tuple[IPNetwork, ...]:
    """``"127.0.0.0/8, ::1/128"`` → networks; a bare address is a /32 (or /128). ``ValueError``
    naming the entry that is not a network."""
    networks: list[IPNetwork] = []
    for entry in (part.strip() for part in value.split(",")):
        if not entry:
            continue
        try:
            networks.append(ipaddress.ip_network(entry, strict=False))
        except ValueError as exc:
            raise ValueError(
                f"{SETTING}: {entry!r} is not a network in CIDR form, e.g. 127.0.0.0/8 or ::1/128"
            ) from exc
    return tuple(networks)


def _embedded_ipv4(address: IPAddress) -> ipaddress.IPv4Address | None:
    if isinstance(address, ipaddress.IPv4Address):
        return None
    if address.ipv4_mapped is not None:
        return address.ipv4_mapped
    if address.sixtofour is not None:
        return address.sixtofour
    if address in _NAT64:
        return ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
    return None


def _range_of(address: IPAddress) -> tuple[str, str] | None:
    for network, why in REFUSED_NETWORKS:
        if address.version == network.version and address in network:
            return str(network), why
    if not address.is_global:
        return "a range that is not globally routable", "reserved"
    return None


def is_ip_literal(host: str) -> bool:
    try:
        ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        return False
    return True


@dataclass(frozen=True)
class OutboundPolicy:
    """Refuse loopback, private, link-local, multicast, reserved and unspecified addresses, except
    inside ``allowed``."""

    allowed: tuple[IPNetwork, ...] = ()

    @classmethod
    def from_setting(cls, value: str) -> OutboundPolicy:
        return cls(parse_networks(value))

    def _allows(self, address: IPAddress) -> bool:
        return any(address.version == net.version and address in net for net in self.allowed)

    def refusal(self, address: str | IPAddress, host: str | None = None) -> str | None:
        """``None`` if a call may go to ``address``; else why not, and what would allow it."""
        ip = ipaddress.ip_address(address.strip("[]")) if isinstance(address, str) else address
        if isinstance(ip, ipaddress.IPv6Address) and ip.scope_id:
            ip = ipaddress.IPv6Address(str(ip).split("%", 1)[0])
        v4 = _embedded_ipv4(ip)
        mapped = isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None
        # An IPv4-mapped address is that IPv4 address; the others are judged as both.
        judged: list[IPAddress] = [ip] if v4 is None else [v4] if mapped else [v4, ip]
        if any(self._allows(each) for each in judged):
            return None
        for each in judged:
            found = _range_of(each)
            if found is None:
                continue
            network, why = found
            seen = str(ip) if each is ip else f"{ip}, carrying IPv4 {each}"
            shown = f"{host} ({seen})" if host and not is_ip_literal(host) else seen
            return (
                f"refused to call {shown}: {network} is {why}; set {SETTING} (comma-separated "
                f"CIDRs, e.g. {each}/{each.max_prefixlen}) on the services to allow it"
            )
        return None

    def require(self, address: str | IPAddress, host: str | None = None) -> None:
        """``OutboundRefused`` unless a call may go to ``address``."""
        refused = self.refusal(address, host)
        if refused is not None:
            raise OutboundRefused(refused)


async def system_resolver(host: str, port: int) -> list[str]:
    """The addresses the operating system's resolver gives, off the event loop."""
    infos = await asyncio.get_running_loop().getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return [str(info[4][0]) for info in infos]


async def check_host(
    policy: OutboundPolicy, host: str, port: int = 0, resolve: Resolver = system_resolver
) -> list[str]:
    """The addresses ``host`` resolves to, all of which the policy allows; ``OutboundRefused`` on
    the first it does not. Resolver errors (``OSError``) propagate."""
    bare = host.strip("[]")
    addresses = [bare] if is_ip_literal(bare) else await resolve(bare, port)
    for address in addresses:
        policy.require(address, host=bare)
    return addresses
