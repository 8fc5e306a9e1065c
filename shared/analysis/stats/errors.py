"""Exceptions raised by the statistics library."""

from __future__ import annotations


class StatsInputError(ValueError):
    """The data handed to a statistics function cannot be analysed as asked.

    The message says which argument was wrong and what a valid one looks like.
    """
