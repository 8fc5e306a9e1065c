"""MkDocs hook (``hooks:`` in mkdocs.yml): adds the generated reference pages in memory.

``on_config`` lists the CLI pages in the navigation where ``reference/cli/index.md`` is;
``on_files`` adds every page of :func:`docs.gen.reference_pages` to the build. Nothing is written
into ``docs/``, so nothing generated can be committed or go stale.
"""

from __future__ import annotations

from typing import Any

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import File, Files

from docs.gen import CLI_DIR, reference_pages

_pages: dict[str, str] = {}


def _generated() -> dict[str, str]:
    if not _pages:
        _pages.update(reference_pages())
    return _pages


def _with_cli_pages(nav: Any, cli_nav: list[Any]) -> Any:
    """``nav`` with the entry pointing at the CLI index replaced by the CLI section."""
    if isinstance(nav, list):
        return [_with_cli_pages(entry, cli_nav) for entry in nav]
    if isinstance(nav, dict):
        return {
            title: cli_nav if target == f"{CLI_DIR}/index.md" else _with_cli_pages(target, cli_nav)
            for title, target in nav.items()
        }
    return nav


def on_config(config: MkDocsConfig) -> MkDocsConfig:
    commands = sorted(path for path in _generated() if path.startswith(f"{CLI_DIR}/") and "index" not in path)
    cli_nav = [f"{CLI_DIR}/index.md"] + [{f"yardstick {p.rsplit('/', 1)[1][:-3]}": p} for p in commands]
    config.nav = _with_cli_pages(config.nav, cli_nav)
    return config


def on_files(files: Files, config: MkDocsConfig) -> Files:
    for path, markdown in _generated().items():
        files.append(File.generated(config, path, content=markdown))
    return files
