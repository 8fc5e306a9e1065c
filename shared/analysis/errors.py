"""Errors of the analysis of finished runs."""

from __future__ import annotations


class ComparisonError(ValueError):
    """The two runs or the comparison config cannot be compared as asked."""
