"""`yardstick ui [PATH]`: a one-time sign-in link into the web UI, opened when there is a display."""

from __future__ import annotations

import os
import sys
import webbrowser
from urllib.parse import urlencode

import typer

from services.cli.consoles import stderr_console
from services.cli.coordinator import ApiError, connect, fail


def has_display() -> bool:
    return sys.platform in ("darwin", "win32") or bool(
        os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")
    )


def ui_command(
    path: str = typer.Argument(
        "/ui/experiments", help="Where to land, e.g. /ui/compare?baseline=A&candidate=B"
    ),
    no_open: bool = typer.Option(False, "--no-open", help="Only print the link; do not start a browser"),
) -> None:
    """Sign in to the web UI: prints a link that works once, for a few minutes."""
    err = stderr_console()
    if not path.startswith("/"):
        path = "/ui/" + path.removeprefix("ui/")
    try:
        client = connect()
        if client.project and "project=" not in path:  # the session opens in the chosen project
            path += ("&" if "?" in path else "?") + urlencode({"project": client.project})
        link = client.sign_in_link(path)
    except (ApiError, ValueError) as exc:
        raise fail(exc) from exc
    typer.echo(link)
    if not no_open and has_display():
        webbrowser.open(link)
        err.print("opened in your browser (the link works once; run `yardstick ui` again for another)")
    else:
        err.print("open it in a browser: it works once, within a few minutes")
