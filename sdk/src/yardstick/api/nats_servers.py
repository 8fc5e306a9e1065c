"""``NATS_URL`` as a list: one URL, or several separated by commas (the nodes of a cluster).

nats-py's ``connect(servers=…)`` takes a list and refuses a comma-separated string ("invalid connect
url option"); with one URL the client cannot start while that one node is down, even when the
others would answer. Every connection path (services, task workers, the CLI, FastStream brokers,
stream declaration) splits the setting here, so a cluster is named once, the same way everywhere.
"""

from __future__ import annotations

from urllib.parse import urlsplit

SCHEMES = ("nats", "tls", "ws", "wss")


class InvalidNatsUrl(ValueError):
    """A ``NATS_URL`` entry is not a ``nats://host:port`` URL."""


def nats_servers(value: str) -> list[str]:
    """The server URLs in ``value`` (comma-separated), in order, each checked; at least one."""
    urls = [part.strip() for part in value.split(",") if part.strip()]
    if not urls:
        raise InvalidNatsUrl("NATS_URL is empty: give nats://host:port, or several separated by commas")
    for url in urls:
        parts = urlsplit(url if "://" in url else f"nats://{url}")
        try:
            parts.port  # noqa: B018  (raises on a port that is not a number in range)
        except ValueError as exc:
            raise InvalidNatsUrl(f"NATS_URL entry {url!r} has an invalid port") from exc
        if parts.scheme not in SCHEMES or not parts.hostname:
            raise InvalidNatsUrl(
                f"NATS_URL entry {url!r} is not a server URL: expected nats://host:port "
                f"(schemes: {', '.join(SCHEMES)}), several separated by commas"
            )
    return urls
