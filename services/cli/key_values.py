"""``KEY=VALUE`` command-line options (repeatable) into a dict."""

from __future__ import annotations

import typer


def parse_key_values(pairs: list[str] | None, option: str) -> dict[str, str]:
    """``["a=1", "b=x=y"]`` → ``{"a": "1", "b": "x=y"}``; a pair without ``=`` is a usage error."""
    parsed: dict[str, str] = {}
    for pair in pairs or []:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise typer.BadParameter(f"{option} {pair!r}: use KEY=VALUE")
        parsed[key] = value
    return parsed
