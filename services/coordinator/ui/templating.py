"""Jinja2 templates with the UI's number formats as filters, and the one way pages render."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from fastapi import Request
from fastapi.responses import HTMLResponse
from fastapi.templating import Jinja2Templates

from services.coordinator.ui.session import UiSession
from services.coordinator.ui.views.formatting import FILTERS

HERE = Path(__file__).parent
STATIC_DIR = HERE / "static"
VENDOR_FILES = ("htmx.min.js", "chart.umd.min.js", "chartjs-chart-error-bars.min.js")

templates = Jinja2Templates(directory=str(HERE / "templates"))
templates.env.filters.update(FILTERS)


def assets_ready() -> bool:
    """Whether `make ui-assets` has put the npm packages in static/vendor (pages say so if not)."""
    return all((STATIC_DIR / "vendor" / name).is_file() for name in VENDOR_FILES)


def render(
    request: Request,
    template: str,
    *,
    ui: UiSession | None,
    section: str = "",
    status_code: int = 200,
    **context: Any,
) -> HTMLResponse:
    return templates.TemplateResponse(
        request,
        template,
        {"ui": ui, "section": section, "assets_ready": assets_ready(), **context},
        status_code=status_code,
    )
