"""The bad-day provider fixture for the judges' tests."""

from tests.llm_provider import provider

__all__ = ["provider"]
