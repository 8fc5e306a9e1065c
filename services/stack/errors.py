"""The launcher's error, importable without the launcher (the CLI catches it before loading it)."""

from __future__ import annotations


class StackError(RuntimeError):
    """The stack could not be brought up or down; the message says why and what to do."""
