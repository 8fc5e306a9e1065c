"""The CLI reference: one page per top-level `yardstick` command, read from the Typer app.

A group (``yardstick datasets``) gets one page with a section per subcommand. Usage lines, help
texts and options are what ``--help`` prints, taken from the command objects themselves.
"""

from __future__ import annotations

from typing import Any

import typer

from docs.gen.json_schema import cell
from services.cli.app import app

CLI_DIR = "reference/cli"


def _subcommands(command: Any) -> dict[str, Any]:
    """A group's visible subcommands by name (empty for a plain command)."""
    commands: dict[str, Any] = getattr(command, "commands", {})
    return {name: sub for name, sub in commands.items() if not sub.hidden}


def _section(command: Any, ctx: typer.Context, level: int) -> list[str]:
    """The usage, help and options of one command, as markdown under a heading of ``level``."""
    lines = [f"{'#' * level} `{ctx.command_path}`", ""]
    lines += ["```text", command.get_usage(ctx).strip(), "```", ""]
    if command.help:
        lines += [command.help.strip(), ""]
    records = [r for r in (p.get_help_record(ctx) for p in command.params) if r is not None]
    if records:
        lines += ["| argument / option | description |", "|---|---|"]
        lines += [f"| `{cell(names)}` | {cell(help_text)} |" for names, help_text in records]
        lines.append("")
    return lines


def _page(name: str, command: Any, root_ctx: typer.Context) -> str:
    ctx = typer.Context(command, info_name=name, parent=root_ctx)
    lines = _section(command, ctx, 1)
    for sub_name, sub in _subcommands(command).items():
        lines += _section(sub, typer.Context(sub, info_name=sub_name, parent=ctx), 2)
    return "\n".join(lines)


def _index(root: Any) -> str:
    lines = [
        "# CLI",
        "",
        "Every `yardstick` command, generated from the Typer app (`services/cli/app.py`) when the",
        "docs are built. `yardstick COMMAND --help` prints the same.",
        "",
        "| command | what it does |",
        "|---|---|",
    ]
    for name, command in _subcommands(root).items():
        summary = cell((command.help or "").strip().split("\n", 1)[0])
        lines.append(f"| [`yardstick {name}`]({name}.md) | {summary} |")
    return "\n".join(lines) + "\n"


def cli_pages() -> dict[str, str]:
    """``reference/cli/index.md`` and one ``reference/cli/COMMAND.md`` per top-level command."""
    root = typer.main.get_command(app)
    root_ctx = typer.Context(root, info_name="yardstick")
    pages = {f"{CLI_DIR}/index.md": _index(root)}
    for name, command in _subcommands(root).items():
        pages[f"{CLI_DIR}/{name}.md"] = _page(name, command, root_ctx)
    return pages
