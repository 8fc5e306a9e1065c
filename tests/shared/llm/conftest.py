"""The bad-day provider fixture for these tests."""

from tests.llm_provider import provider

__all__ = ["provider"]
