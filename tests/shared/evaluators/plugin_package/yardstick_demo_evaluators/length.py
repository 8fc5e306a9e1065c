"""A plain function, registered under its entry point's name (``demo_length``)."""

from __future__ import annotations

import json
from typing import Any


def output_length(*, output: Any, max_chars: int = 200, **kwargs: Any) -> dict[str, Any]:
    """1.0 when the output's JSON is at most ``max_chars`` long."""
    size = len(json.dumps(output, default=str))
    return {"name": "demo_length", "value": float(size <= max_chars), "metadata": {"chars": size}}
