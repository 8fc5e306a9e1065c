"""The reference pages, generated from the code at build time so they cannot drift.

:func:`reference_pages` renders every generated page (path under ``docs/`` → markdown); the
MkDocs hook in :mod:`docs.gen.hook` adds them to the site in memory, so nothing generated is
ever written into the source tree.
"""

from __future__ import annotations

from docs.gen.api_reference import api_page
from docs.gen.cli_reference import CLI_DIR, cli_pages
from docs.gen.evaluator_catalogue import EvaluatorEntry, evaluator_entries, evaluators_page
from docs.gen.metrics_reference import metrics_page
from docs.gen.settings_reference import settings_page

__all__ = [
    "CLI_DIR",
    "EvaluatorEntry",
    "api_page",
    "cli_pages",
    "evaluator_entries",
    "evaluators_page",
    "metrics_page",
    "reference_pages",
    "settings_page",
]


def reference_pages() -> dict[str, str]:
    """Every generated page: its path relative to ``docs/`` → its markdown."""
    return {
        **cli_pages(),
        "reference/http-api.md": api_page(),
        "reference/evaluators.md": evaluators_page(),
        "reference/settings.md": settings_page(),
        "reference/metrics.md": metrics_page(),
    }
