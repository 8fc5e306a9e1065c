"""A module whose evaluators register themselves when imported (entry point names the module)."""

from __future__ import annotations

from typing import Any

from shared.evaluators import Evaluation, register


@register("demo_said_ok")
def said_ok(*, output: Any, word: str = "ok", **kwargs: Any) -> Evaluation:
    """1.0 when the output's response is ``word``."""
    said = isinstance(output, dict) and output.get("response") == word
    return Evaluation(name="demo_said_ok", value=float(said))
