"""The CLI's consoles: tables and reports on stdout, progress bars and errors on stderr.

When the output is not a terminal (a pipe, a CI log, ``make demo > log``) Rich falls back to 80
columns, which cuts metric names in the comparison tables; such output gets 120 columns instead.
``COLUMNS`` in the environment still wins.
"""

from __future__ import annotations

import os
import sys

from rich.console import Console

PIPE_WIDTH = 120


def _width(stream_is_tty: bool) -> int | None:
    return None if stream_is_tty or os.environ.get("COLUMNS") else PIPE_WIDTH


def stdout_console() -> Console:
    return Console(width=_width(sys.stdout.isatty()))


def stderr_console() -> Console:
    return Console(stderr=True, width=_width(sys.stderr.isatty()))


__all__ = ["PIPE_WIDTH", "stderr_console", "stdout_console"]
