"""Yardstick's shared library: settings, database, evaluators, statistics."""

from shared.settings import CommonSettings

__all__ = ["CommonSettings"]
